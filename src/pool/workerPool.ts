import pLimit from 'p-limit';

import { CapacityGate } from './capacityGate';
import type { PoolSize } from '../config';
import { PoolCancelledError } from './errors';
import type { JobOutcome, JobRegistry } from './jobRegistry';
import type { JobFunction, JobKind, JobSnapshot, PoolStats, SubmitOptions } from './types';

interface AdmittedJob {
	owner?: string;
	controller: AbortController;
	running: boolean;
}

/** Which admitted jobs a cancel reaches; running jobs are reached unless `running: false`. */
export interface CancelOptions {
	running?: boolean;
}

const TOTAL_FOR = { succeeded: 'completed', failed: 'failed', cancelled: 'cancelled' } as const;

/**
 * One bounded pool: at most `workers` jobs run (p-limit), at most `workers + pending` are
 * admitted (capacity gate); further submits wait at the gate in FIFO order.
 * Job records live in the (shared) registry; cancellation acts on this pool's jobs only.
 */
export class WorkerPool {
	readonly workers: number;
	readonly pending: number;
	private readonly limit: ReturnType<typeof pLimit>;
	private readonly gate: CapacityGate;
	/** Admitted jobs (queued or running) by id. */
	private readonly admitted = new Map<string, AdmittedJob>();
	private readonly totals = { completed: 0, failed: 0, cancelled: 0 };

	constructor(
		readonly kind: JobKind,
		size: PoolSize,
		private readonly registry: JobRegistry,
	) {
		if (!Number.isInteger(size.pending) || size.pending < 0) {
			throw new RangeError(`pending must be a non-negative integer, got ${size.pending}`);
		}
		this.workers = size.workers;
		this.pending = size.pending;
		this.limit = pLimit(size.workers);
		this.gate = new CapacityGate(size.workers + size.pending, `${kind} pool`);
	}

	/**
	 * Resolves with the job id once the job is admitted (running or queued).
	 * Rejects with PoolCancelledError if `options.signal` aborts while waiting at the gate.
	 */
	async submit<T>(run: JobFunction<T>, options: SubmitOptions<T> = {}): Promise<string> {
		await this.gate.acquire(options.signal);
		const jobId = this.registry.create(this.kind, options.owner, options.meta);
		this.admitted.set(jobId, { owner: options.owner, controller: new AbortController(), running: false });
		void this.limit(() => this.execute(jobId, run, options.sizeOf));
		return jobId;
	}

	/**
	 * Resolves when the job is final (never rejects because the job failed: look at state/error).
	 * Rejects with PoolCancelledError when `signal` fires, UnknownJobError / ExpiredJobError.
	 */
	wait<T>(jobId: string, signal?: AbortSignal): Promise<JobSnapshot<T>> {
		return this.registry.whenFinal<T>(jobId, signal);
	}

	/** Current snapshot; throws UnknownJobError / ExpiredJobError. */
	get<T>(jobId: string): JobSnapshot<T> {
		return this.registry.get<T>(jobId);
	}

	/** The jobs' results were delivered by a collector: the registry's byte bound may drop them now. */
	markCollected(jobIds: readonly string[]): void {
		for (const id of jobIds) this.registry.markCollected(id);
	}

	/** Queued jobs of the owner never start (state cancelled); running ones get their signal fired. */
	cancelOwner(owner: string, reason?: string, options?: CancelOptions): { queued: number; running: number } {
		const ids = [...this.admitted].filter(([, job]) => job.owner === owner).map(([id]) => id);
		return this.cancelJobs(ids, reason, options);
	}

	/** Like cancelOwner, for the listed ids; ids that are unknown, final or of the other pool are ignored. */
	cancelJobs(
		ids: readonly string[],
		reason?: string,
		{ running = true }: CancelOptions = {},
	): { queued: number; running: number } {
		const counts = { queued: 0, running: 0 };
		for (const id of ids) {
			const job = this.admitted.get(id);
			if (!job) continue;
			const error = new PoolCancelledError(`Job "${id}" was cancelled${reason ? `: ${reason}` : '.'}`);
			if (!job.running) {
				this.settle(id, { state: 'cancelled', error });
				counts.queued++;
			} else if (running && !job.controller.signal.aborted) {
				job.controller.abort(error);
				counts.running++;
			}
		}
		return counts;
	}

	stats(): PoolStats {
		let running = 0;
		for (const job of this.admitted.values()) if (job.running) running++;
		return {
			running,
			queued: this.admitted.size - running,
			admitted: this.admitted.size,
			waitingAtGate: this.gate.waiting,
			...this.totals,
			retainedBytes: this.registry.retainedBytes(this.kind),
		};
	}

	/** Runs under p-limit; never rejects. */
	private async execute<T>(jobId: string, run: JobFunction<T>, sizeOf?: (result: T) => number): Promise<void> {
		const job = this.admitted.get(jobId);
		if (!job) return; // cancelled while queued: already settled
		job.running = true;
		this.registry.start(jobId);
		let outcome: JobOutcome;
		try {
			const result = await run({
				jobId,
				signal: job.controller.signal,
				setAttempts: (n) => this.registry.setAttempts(jobId, n),
			});
			outcome = { state: 'succeeded', result, bytes: sizeOf ? sizeOf(result) : 0 };
		} catch (error) {
			outcome = { state: job.controller.signal.aborted ? 'cancelled' : 'failed', error };
		}
		this.settle(jobId, outcome);
	}

	/** The job leaves the pool: record its outcome and free its gate slot. */
	private settle(jobId: string, outcome: JobOutcome): void {
		this.admitted.delete(jobId);
		this.totals[TOTAL_FOR[outcome.state]]++;
		try {
			this.registry.finish(jobId, outcome);
		} finally {
			this.gate.release();
		}
	}
}
