/**
 * The process's one Redis connection (settings().redis: COMFLY_REDIS_URL or n8n's queue mode), shared by the
 * account limit and the journal (and every later user), warning through the package logger; and the warnings
 * about Redis for the collector's report: a bad setting, or an outage now or recently.
 */
import { settings } from '../config';
import { logInfo, logWarning } from '../logger';
import { processWide } from '../processWide';
import { SharedRedis } from './sharedRedis';

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
