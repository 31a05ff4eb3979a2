/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/accountLimit knows nothing of n8n nodes: its errors reach the FLUX job, whose caller turns them into node errors. */
/**
 * Builds an AccountLimiter from the environment: with a Redis target (see config.ts), shared leases on
 * one ioredis connection, outages reported through `warn` / `info`; without one, per-process limits.
 * A bad Redis setting is reported once through `warn` (naming the variable) and leaves per-process limits.
 */
import { AccountLimiter } from './accountLimiter';
import { AccountLimitConfigError, describeRedisTarget, readRedisTarget, type RedisTarget } from './config';
import { RedisConnection } from './redisConnection';
import { DEFAULT_LEASE_TIMING, RedisLeases, type LeaseTiming } from './redisLeases';
import { SharedLimitHealth } from './sharedLimitHealth';

export interface CreateAccountLimiterOptions {
	warn: (message: string) => void;
	info: (message: string) => void;
	leaseTiming?: LeaseTiming;
}

export interface BuiltAccountLimiter {
	limiter: AccountLimiter;
	/** Closes the Redis connection, if any. */
	close(): Promise<void>;
}

function target(env: Readonly<Record<string, string | undefined>>, warn: (m: string) => void): RedisTarget | undefined {
	try {
		return readRedisTarget(env);
	} catch (error) {
		if (!(error instanceof AccountLimitConfigError)) throw error;
		warn(`${error.message}: the account-wide limit is per process.`);
		return undefined;
	}
}

export function createAccountLimiter(env: Readonly<Record<string, string | undefined>>, options: CreateAccountLimiterOptions): BuiltAccountLimiter {
	const redis = target(env, options.warn);
	if (redis === undefined) return { limiter: new AccountLimiter(), close: async () => undefined };
	const where = describeRedisTarget(redis);
	const health = new SharedLimitHealth(where, options.warn, options.info);
	let lapseWarned = false; // once per connected period: a Redis restarted empty lapses every lease at once
	const connection = new RedisConnection(redis, {
		onUp: () => {
			lapseWarned = false;
			health.restored();
		},
		onDown: (why) => health.lost(why),
	});
	// A lapsed lease with Redis up is not an outage: its job runs on without one, new jobs take leases.
	const onLapsed = (why: string) => {
		if (!lapseWarned) options.warn(`Redis at ${where}: ${why}; running jobs go on under the per-process limit, new jobs take shared leases.`);
		lapseWarned = true;
	};
	const leases = new RedisLeases(connection, options.leaseTiming ?? DEFAULT_LEASE_TIMING, onLapsed);
	return { limiter: new AccountLimiter({ leases, health }), close: () => connection.close() };
}


