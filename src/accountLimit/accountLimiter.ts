/**
 * Account-wide limits, one per account+model name: an in-process AdaptiveLimit always, plus a Redis
 * lease (the limit shared by every process on that Redis) when Redis is configured and usable.
 * Redis missing, stalled or lost: a job goes on under the in-process limit alone (SharedRedis warns);
 * Redis back: the next jobs take leases again. Each job gets a {@link JobAdmission} to acquire before its
 * submit, report a 429 or acceptance, and release when its task is final.
 */
import type { SharedRedis } from '../redis';
import { AdaptiveLimit, type AdaptiveLimitStats } from './adaptiveLimit';
import { DEFAULT_LEASE_TIMING, RedisLeases, type LeaseTiming } from './redisLeases';
import { JobAdmission } from './jobAdmission';

export interface AccountLimiterOptions {
	/** Shared leases (absent: per-process limits only). */
	leases?: RedisLeases;
	/** The Redis behind `leases` (whether the limit is shared right now). */
	redis?: SharedRedis;
}

export class AccountLimiter {
	private readonly limits = new Map<string, AdaptiveLimit>();

	constructor(private readonly options: AccountLimiterOptions = {}) {}

	/** A new job's admission under the limit `name` (see limitName) of `limit` active jobs. */
	admission(name: string, limit: number): JobAdmission {
		return new JobAdmission(name, limit, this.localLimit(name, limit), this.options.leases);
	}

	/** True when no Redis is configured, or Redis is in use right now. */
	shared(): boolean {
		return this.options.redis?.usable() ?? true;
	}

	stats(name: string): AdaptiveLimitStats | undefined {
		return this.limits.get(name)?.stats();
	}

	private localLimit(name: string, limit: number): AdaptiveLimit {
		let local = this.limits.get(name);
		if (local === undefined) this.limits.set(name, (local = new AdaptiveLimit({ limit })));
		return local;
	}
}

/**
 * An AccountLimiter: with a shared Redis, leases on it (its outages are its own to report); without one,
 * per-process limits. A lease that lapses while Redis answers (Redis restarted empty, a stalled process) is not
 * an outage: one log line per connected period through `warn`.
 */
export function createAccountLimiter(redis: SharedRedis | undefined, options: { warn: (message: string) => void; leaseTiming?: LeaseTiming }): AccountLimiter {
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
