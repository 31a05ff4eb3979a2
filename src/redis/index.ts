/**
 * The shared Redis: one connection per process (settings().redis: COMFLY_REDIS_URL or n8n's queue mode, warning
 * through the package logger) with a deadline on every command and a fallback when Redis is gone, silent or
 * refusing the credentials (see sharedRedis.ts). Used by the account limit, the journal's mirror, the claims and
 * the spend ledger.
 */
import { settings } from '../config';
import { logInfo, logWarning } from '../logger';
import { processWide } from '../processWide';
import { SharedRedis } from './sharedRedis';

export { type SharedRedisOptions, SharedRedis } from './sharedRedis';
export { RestartWatch } from './serverRestart';

/** The process-wide connection, made on first use; undefined when no usable Redis is configured. */
export function processRedis(): SharedRedis | undefined {
	return processWide('redis', () => {
		const target = settings().redis.target;
		return target === undefined ? undefined : new SharedRedis(target, { warn: logWarning, info: logInfo });
	});
}

/** The report's warnings about Redis: its bad setting (every report until it is fixed), or its outage. */
export function redisWarnings(): string[] {
	const problem = settings().redis.problem;
	if (problem !== undefined) return [problem];
	return processRedis()?.warnings() ?? [];
}
