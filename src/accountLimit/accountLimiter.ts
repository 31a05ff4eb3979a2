/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/accountLimit knows nothing of n8n nodes: its errors reach the FLUX job, whose caller turns them into node errors. */
/**
 * Account-wide limits, one per account+model name: an in-process AdaptiveLimit always, plus a Redis
 * lease (the limit shared by every process on that Redis) when Redis is configured and usable.
 * Redis missing, stalled or lost: a job goes on under the in-process limit alone (SharedRedis warns);
 * Redis back: the next jobs take leases again. Each job gets a {@link JobAdmission} to acquire before its
 * submit, report a 429 or acceptance, and release when its task is final.
 */
import type { SharedRedis } from '../redis';
import { AdaptiveLimit, type Grant, type GrantOutcome } from './adaptiveLimit';
import { DEFAULT_LEASE_TIMING, RedisLeases, type Lease, type LeaseTiming } from './redisLeases';

/** Header values as HTTP clients hand them over (lower-case names). */
export type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

/** The name of one account+model limit: `<accountId>:<model>` (src/account: never the secret), the same in every process. */
export function limitName(accountId: string, model: string): string {
	return `${accountId}:${model}`;
}

/** The account's limit as a 429 states it (X-RateLimit-Limit); an unparseable value is ignored (never a default pretending the server said something). */
export function statedLimit(headers: HeaderBag): number | undefined {
	const value = headers['x-ratelimit-limit'];
	const text = (Array.isArray(value) ? value[0] : value)?.trim();
	return text !== undefined && /^\d+$/.test(text) && Number(text) > 0 ? Number(text) : undefined;
}

export class AccountLimiter {
	private readonly limits = new Map<string, AdaptiveLimit>();

	/** `leases` absent: per-process limits only. */
	constructor(private readonly leases?: RedisLeases) {}

	/** A new job's admission under the limit `name` (see limitName) of `limit` active jobs. */
	admission(name: string, limit: number): JobAdmission {
		let local = this.limits.get(name);
		if (local === undefined) this.limits.set(name, (local = new AdaptiveLimit({ limit })));
		return new JobAdmission(name, limit, local, this.leases);
	}

	/** True when no Redis is configured, or Redis is in use right now. */
	shared(): boolean {
		return this.leases?.redis.usable() ?? true;
	}

	stats(name: string): ReturnType<AdaptiveLimit['stats']> | undefined {
		return this.limits.get(name)?.stats();
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
	const onLapsed = (why: string) => {
		if (!lapseWarned) options.warn(`Redis at ${redis.where}: ${why}; running jobs go on under the per-process limit, new jobs take shared leases.`);
		lapseWarned = true;
	};
	return new AccountLimiter(new RedisLeases(redis, options.leaseTiming ?? DEFAULT_LEASE_TIMING, onLapsed));
}

/**
 * One job's admission under an account limit: acquire (the in-process adaptive grant, then the shared
 * Redis lease when Redis is usable) before each submit; `accepted` once the task exists upstream;
 * `rateLimited` on a 429 (the grant and lease go back, the limit adapts; acquire again before retrying);
 * `release` when the task is final. Every method is idempotent past the first release.
 */
export class JobAdmission {
	private grant?: Grant;
	private lease?: Lease;
	/** Whether the last acquire held a shared lease (tests, reports). */
	sharedLease = false;

	constructor(
		private readonly name: string,
		private readonly limit: number,
		private readonly local: AdaptiveLimit,
		private readonly leases?: RedisLeases,
	) {}

	/** Resolves once the job may submit; rejects with the signal's reason when it aborts first (nothing stays held). */
	async acquire(signal?: AbortSignal): Promise<void> {
		this.release('ended');
		this.grant = await this.local.acquire(signal);
		try {
			// undefined: Redis not usable (it reports that itself)
			this.lease = await this.leases?.acquire(this.name, this.limit, signal);
			this.sharedLease = this.lease !== undefined;
			signal?.throwIfAborted();
		} catch (error) {
			this.release('ended');
			throw error;
		}
	}

	/** The submit was acknowledged: the task is active upstream. */
	accepted(): void {
		if (this.grant) this.local.accepted(this.grant);
	}

	/**
	 * The submit was answered 429 (no task created): grant and lease go back, the limit adapts. True: wait for
	 * a turn through `acquire` (one of our tasks will finish); false: none of ours is active, back off first.
	 */
	rateLimited(headers: HeaderBag = {}): boolean {
		const grant = this.grant;
		this.grant = undefined;
		this.dropLease();
		return grant ? this.local.rateLimited(grant, statedLimit(headers)) : false;
	}

	/** The task is final (`ready` / `failed`) or the job ended: hand back grant and lease. */
	release(outcome: GrantOutcome): void {
		const grant = this.grant;
		this.grant = undefined;
		if (grant) this.local.release(grant, outcome);
		this.dropLease();
	}

	private dropLease(): void {
		const lease = this.lease;
		this.lease = undefined;
		void lease?.release();
	}
}
