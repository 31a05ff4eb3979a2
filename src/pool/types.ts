/** Which pool a job runs in; chosen by the node's output kind. */
export type JobKind = 'image' | 'video';

/** queued → running → succeeded | failed | cancelled (a queued job may go straight to cancelled). */
export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** What a running job receives. */
export interface JobContext {
	jobId: string;
	/** Fires when the job is cancelled (by owner or id) while running. */
	signal: AbortSignal;
	/** Reports how many HTTP attempts the job has made so far. */
	setAttempts(n: number): void;
}

/** A job: an async function; its rejection marks the job failed (or cancelled once its signal fired). */
export type JobFunction<T> = (ctx: JobContext) => Promise<T>;

export interface SubmitOptions<T> {
	/** The n8n execution id; used by `cancelOwner`. */
	owner?: string;
	/** Aborts the wait at the capacity gate (rejects with PoolCancelledError). */
	signal?: AbortSignal;
	/** Bytes retained by the result, for the registry's byte bound (default 0). */
	sizeOf?: (result: T) => number;
	/** Free-form data copied into the snapshot (e.g. prompt hash, node name). */
	meta?: Record<string, unknown>;
}

/** Epoch milliseconds. */
export interface JobTimings {
	queuedAt: number;
	startedAt?: number;
	finishedAt?: number;
}

/** A copy of a job's state at one moment. */
export interface JobSnapshot<T = unknown> {
	id: string;
	kind: JobKind;
	owner?: string;
	state: JobState;
	result?: T;
	error?: unknown;
	attempts: number;
	timings: JobTimings;
	meta: Record<string, unknown>;
}

export interface PoolStats {
	running: number;
	queued: number;
	/** running + queued */
	admitted: number;
	/** Submits blocked at the capacity gate. */
	waitingAtGate: number;
	/** Cumulative since the pool was created; `completed` counts succeeded jobs. */
	completed: number;
	failed: number;
	cancelled: number;
	/** Bytes of this pool's results still held by the registry. */
	retainedBytes: number;
}
