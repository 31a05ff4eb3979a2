/**
 * Account-wide limits, one per account+model name: an in-process AdaptiveLimit always, plus a Redis
 * lease (the limit shared by every process on that Redis) when Redis is configured and usable.
 * Redis missing, stalled or lost: a job goes on under the in-process limit alone (SharedRedis warns);
 * Redis back: the next jobs take leases again. Each job gets a {@link JobAdmission} to acquire before its
 * submit, report a 429 or acceptance, and release when its task is final.
 */
import type { SharedRedis } from '../redis';
import { AdaptiveLimit, type AdaptiveLimitStats, type GrantOutcome } from './adaptiveLimit';
import { readRateLimitHint, type HeaderBag } from './rateLimitHeaders';
import type { RedisLeases } from './redisLeases';
import { JobAdmission } from './jobAdmission';

export interface AccountLimiterOptions {
	/** Shared leases (absent: per-process limits only). */
	leases?: RedisLeases;
	/** The Redis behind `leases` (whether the limit is shared right now). */
	redis?: SharedRedis;
	now?: () => number;
	decrease?: number;
}

export class AccountLimiter {
	private readonly limits = new Map<string, AdaptiveLimit>();

	constructor(private readonly options: AccountLimiterOptions = {}) {}

	/** A new job's admission under the limit `name` (see limitName) of `limit` active jobs. */
	admission(name: string, limit: number): JobAdmission {
		return new JobAdmission({
			name,
			limit,
			local: this.localLimit(name, limit),
			leases: this.options.leases,
			hintOf: (headers: HeaderBag) => readRateLimitHint(headers, (this.options.now ?? Date.now)()),
		});
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
		if (local === undefined) {
			local = new AdaptiveLimit({ limit, decrease: this.options.decrease });
			this.limits.set(name, local);
		}
		return local;
	}
}

export type { GrantOutcome };
