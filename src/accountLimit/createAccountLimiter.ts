/**
 * Builds an AccountLimiter: with a shared Redis, leases on it (its outages are its own to report); without
 * one, per-process limits. A lease that lapses while Redis answers (Redis restarted empty, a stalled process)
 * is not an outage: one log line per connected period through `warn`.
 */
import type { SharedRedis } from '../redis';
import { AccountLimiter } from './accountLimiter';
import { DEFAULT_LEASE_TIMING, RedisLeases, type LeaseTiming } from './redisLeases';

export interface CreateAccountLimiterOptions {
	warn: (message: string) => void;
	leaseTiming?: LeaseTiming;
}

export function createAccountLimiter(redis: SharedRedis | undefined, options: CreateAccountLimiterOptions): AccountLimiter {
	if (redis === undefined) return new AccountLimiter();
	let lapseWarned = false; // once per connected period: a Redis restarted empty lapses every lease at once
	redis.onUp(() => (lapseWarned = false));
	// A lapsed lease with Redis up is not an outage: its job runs on without one, new jobs take leases.
	const onLapsed = (why: string) => {
		if (!lapseWarned) options.warn(`Redis at ${redis.where}: ${why}; running jobs go on under the per-process limit, new jobs take shared leases.`);
		lapseWarned = true;
	};
	return new AccountLimiter({ leases: new RedisLeases(redis, options.leaseTiming ?? DEFAULT_LEASE_TIMING, onLapsed), redis });
}
