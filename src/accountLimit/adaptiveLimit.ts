/**
 * An in-process adaptive limit on jobs active upstream for one account and model (AIMD, as TCP does
 * with its window). At most `floor(effective)` grants are held at once. A 429 (the account is full)
 * cuts `effective` multiplicatively, to what the account proved it holds of ours (our accepted tasks),
 * at most `decrease` × the old value, once per wave of refusals; from then on new grants wait until
 * one of our own accepted tasks finishes. When none of ours is active there is nothing of ours to
 * wait for and nothing learnt about our share: `rateLimited` leaves the limit as it is and answers false,
 * and the caller backs off by itself (Retry-After). Every clean
 * completion adds `1 / effective` (one slot per round of completions), up to the configured limit.
 * Knows nothing of FLUX, n8n or Redis.
 */
export interface AdaptiveLimitOptions {
	/** The configured limit: `effective` starts here and never grows past it. */
	limit: number;
	/** Multiplicative decrease factor of a 429 (default 0.9: at least one slot in ten goes). */
	decrease?: number;
}

/** One admission; hand it back through `accepted`, `rateLimited` or `release`. */
export interface Grant {
	readonly epoch: number;
	accepted: boolean;
	done: boolean;
}

/** How a granted job ended upstream: `ready` (a clean completion), `failed`, or `ended` (unknown). */
export type GrantOutcome = 'ready' | 'failed' | 'ended';

export const DEFAULT_DECREASE = 0.9;

export class AdaptiveLimit {
	private effective: number;
	private held = 0;
	private acceptedCount = 0;
	private epoch = 0;
	private waveCeiling = 1;
	/** After a 429: closed until one of our accepted tasks finishes. */
	private waitingForCompletion = false;
	/** Each hands its job a grant (and stops listening for its abort). */
	private readonly waiters: Array<(grant: Grant) => void> = [];
	private rateLimitedCount = 0;
	private decreases = 0;

	constructor(private readonly options: AdaptiveLimitOptions) {
		if (!(options.limit >= 1)) throw new RangeError(`limit must be at least 1 (got ${options.limit})`);
		this.effective = Math.floor(options.limit);
	}

	/** Resolves with a grant once the job may submit; rejects with the signal's reason when it aborts first. */
	acquire(signal?: AbortSignal): Promise<Grant> {
		if (signal?.aborted) return Promise.reject(signal.reason);
		if (this.waiters.length === 0 && this.isOpen()) return Promise.resolve(this.grant());
		return new Promise<Grant>((resolve, reject) => {
			const onAbort = () => {
				const at = this.waiters.indexOf(waiter);
				if (at >= 0) this.waiters.splice(at, 1);
				reject(signal?.reason);
			};
			const waiter = (grant: Grant) => {
				signal?.removeEventListener('abort', onAbort);
				resolve(grant);
			};
			signal?.addEventListener('abort', onAbort, { once: true });
			this.waiters.push(waiter);
		});
	}

	/** The job's submit was acknowledged: its task is active upstream. */
	accepted(grant: Grant): void {
		if (grant.done || grant.accepted) return;
		grant.accepted = true;
		this.acceptedCount++;
	}

	/**
	 * The job's submit was refused with a 429 (no task was created): the grant ends, the limit adapts.
	 * True: one of our tasks is active, new grants wait for it to finish (acquire again to wait your turn).
	 * False: none of ours is active, nothing to wait for: back off by yourself (e.g. Retry-After), then acquire.
	 */
	rateLimited(grant: Grant, statedLimit?: number): boolean {
		if (grant.done) return false;
		this.end(grant);
		this.rateLimitedCount++;
		// None of ours active: the account is full of other work, our limit is not what to cut.
		if (this.acceptedCount > 0) {
			this.cut(grant.epoch, statedLimit);
			this.waitingForCompletion = true;
		}
		this.pump();
		return this.acceptedCount > 0;
	}

	/** The job's task is final upstream (or the job ended): the grant ends; a `ready` one raises the limit. */
	release(grant: Grant, outcome: GrantOutcome): void {
		if (grant.done) return;
		this.end(grant); // leaves grant.accepted as it was
		if (grant.accepted) {
			if (outcome === 'ready') this.effective = Math.min(this.options.limit, this.effective + 1 / Math.max(1, Math.floor(this.effective)));
			this.waitingForCompletion = false;
		}
		this.pump();
	}

	stats() {
		return {
			limit: this.options.limit,
			effective: this.effective,
			held: this.held,
			accepted: this.acceptedCount,
			waiting: this.waiters.length,
			rateLimited: this.rateLimitedCount,
			decreases: this.decreases,
		};
	}

	private isOpen(): boolean {
		return !this.waitingForCompletion && this.held < Math.max(1, Math.floor(this.effective));
	}

	private grant(): Grant {
		this.held++;
		return { epoch: this.epoch, accepted: false, done: false };
	}

	private end(grant: Grant): void {
		grant.done = true;
		this.held--;
		if (grant.accepted) this.acceptedCount--;
	}

	/** Once per wave: cut to our accepted tasks, at most `decrease` × effective; later refusals of the wave may raise it back to what was accepted meanwhile. */
	private cut(grantEpoch: number, statedLimit = Number.POSITIVE_INFINITY): void {
		if (grantEpoch === this.epoch) {
			this.epoch++;
			this.decreases++;
			this.waveCeiling = Math.max(1, Math.min(statedLimit, Math.ceil(Math.floor(this.effective) * (this.options.decrease ?? DEFAULT_DECREASE))));
			this.effective = Math.max(1, Math.min(this.waveCeiling, this.acceptedCount));
		} else if (grantEpoch === this.epoch - 1) {
			this.effective = Math.max(this.effective, Math.max(1, Math.min(this.waveCeiling, this.acceptedCount)));
		}
	}

	private pump(): void {
		while (this.waiters.length > 0 && this.isOpen()) this.waiters.shift()?.(this.grant());
	}
}
