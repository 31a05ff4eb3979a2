/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/accountLimit knows nothing of n8n nodes: its errors reach the FLUX job, whose caller turns them into node errors. */
/**
 * One job's admission under an account limit: acquire (the in-process adaptive grant, then the shared
 * Redis lease when Redis is usable) before each submit; `accepted` once the task exists upstream;
 * `rateLimited` on a 429 (the grant and lease go back, the limit adapts; acquire again before retrying);
 * `release` when the task is final. Every method is idempotent past the first release.
 */
import type { AdaptiveLimit, Grant, GrantOutcome } from './adaptiveLimit';
import { readRateLimitHint, type HeaderBag } from './rateLimitHeaders';
import type { Lease, RedisLeases } from './redisLeases';

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
		} catch (error) {
			this.release('ended');
			throw error;
		}
		this.sharedLease = this.lease !== undefined;
		if (signal?.aborted) {
			this.release('ended');
			throw signal.reason;
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
		return grant ? this.local.rateLimited(grant, readRateLimitHint(headers, Date.now())) : false;
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
