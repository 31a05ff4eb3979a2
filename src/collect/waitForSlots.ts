import { setMaxListeners } from 'node:events';

import { PoolCancelledError, poolErrorCode, type JobSnapshot, type PoolErrorCode, type WorkerPool } from '../pool';
import type { CollectableResult } from './collectorSpec';
import { slotPlace, type Slot } from './slots';

export type SlotStatus = 'success' | 'failed' | 'skipped_error' | 'cancelled';

export interface SlotTimings {
	queuedAt?: string;
	startedAt?: string;
	finishedAt?: string;
	/** Time spent queued in the pool before a worker took the job. */
	queuedMs?: number;
	/** Time from a worker taking the job to its end (submit, polling, download). */
	runMs?: number;
}

/** How one slot ended; the fields it shares with its result mean what they mean there (its cost: 0 when served from the store). */
export interface SlotOutcome<Result extends CollectableResult = CollectableResult> extends Pick<CollectableResult, 'taskId' | 'error' | 'errorKind' | 'cached' | 'cost' | 'draft'> {
	slot: Slot;
	status: SlotStatus;
	result?: Result;
	timings: SlotTimings;
	attempts: number;
}

/** The error kind a slot row shows for the pool's own errors. */
const KIND_BY_POOL_CODE: Record<PoolErrorCode, string> = {
	POOL_CANCELLED: 'cancelled',
	UNKNOWN_JOB: 'unknown_job',
	EXPIRED_JOB: 'expired',
};

/**
 * A job's error as the collector shows it: redacted text, and a kind when known.
 * Classified by value (a `kind` field, else a pool error `code`), never by class:
 * the error may come from another copy of this package sharing the pool.
 */
export function describeJobError(error: unknown, redact: (text: string) => string): { message: string; kind?: string; taskId?: string; cost?: number } {
	const fields: Record<string, unknown> = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
	const code = poolErrorCode(error);
	const kind = typeof fields.kind === 'string' ? fields.kind : code && KIND_BY_POOL_CODE[code];
	const text = typeof fields.message === 'string' ? fields.message : error === undefined ? 'unknown error' : String(error);
	return {
		message: redact(text),
		...(kind ? { kind } : {}),
		...(typeof fields.taskId === 'string' ? { taskId: fields.taskId } : {}),
		...(typeof fields.cost === 'number' && Number.isFinite(fields.cost) ? { cost: fields.cost } : {}),
	};
}

/** Thrown by waitForSlots in fail-fast mode: the first failed slot. */
export class SlotFailedError extends Error {
	constructor(readonly outcome: SlotOutcome) {
		super(`Slot ${outcome.slot.slot} failed: ${outcome.error ?? 'unknown error'}`);
		this.name = 'SlotFailedError';
	}
}

function iso(ms: number | undefined): string | undefined {
	return ms === undefined ? undefined : new Date(ms).toISOString();
}

function timingsOf(snapshot: JobSnapshot): SlotTimings {
	const { queuedAt, startedAt, finishedAt } = snapshot.timings;
	return {
		queuedAt: iso(queuedAt),
		startedAt: iso(startedAt),
		finishedAt: iso(finishedAt),
		queuedMs: startedAt === undefined ? undefined : startedAt - queuedAt,
		runMs: startedAt === undefined || finishedAt === undefined ? undefined : finishedAt - startedAt,
	};
}

/** Turn a final job snapshot into the slot's outcome. */
export function outcomeOf<Result extends CollectableResult>(
	slot: Slot,
	snapshot: JobSnapshot<Result>,
	redact: (text: string) => string,
): SlotOutcome<Result> {
	const base = { slot, timings: timingsOf(snapshot), attempts: snapshot.attempts };
	if (snapshot.state === 'succeeded' && snapshot.result) {
		const result = snapshot.result;
		return {
			...base,
			status: result.outcome === 'skipped_error' ? 'skipped_error' : 'success',
			taskId: result.taskId,
			error: result.error,
			errorKind: result.errorKind,
			...(result.cached === undefined ? {} : { cached: result.cached }),
			cost: result.cached ? 0 : (result.cost ?? null),
			...(result.draft ? { draft: true } : {}),
			result,
		};
	}
	const described = describeJobError(snapshot.error, redact);
	return {
		...base,
		status: snapshot.state === 'cancelled' ? 'cancelled' : 'failed',
		taskId: described.taskId,
		error: described.message,
		errorKind: described.kind,
		cost: described.cost ?? null,
	};
}

/** A slot that failed without a job result: a submit-side error, an unknown or expired job. */
function failedSlot<Result extends CollectableResult>(slot: Slot, error: string, errorKind: string): SlotOutcome<Result> {
	return { slot, status: 'failed', error, errorKind, timings: {}, attempts: 0 };
}

/** One slot's outcome. Rejects only when `signal` fires (PoolCancelledError). */
async function waitForSlot<Result extends CollectableResult>(
	pool: WorkerPool,
	slot: Slot,
	signal: AbortSignal,
	options: WaitForSlotsOptions<Result>,
): Promise<SlotOutcome<Result>> {
	const { redact } = options;
	if (slot.jobId === undefined) {
		const reason = redact(slot.submitError ?? 'unknown error');
		return failedSlot(slot, `The submit node could not submit the item at ${slotPlace(slot)}: ${reason}`, 'submit_failed');
	}
	const jobId = slot.jobId;
	return await pool.wait<Result>(jobId, signal).then(
		(snapshot) => outcomeOf(slot, snapshot, redact),
		async (error: unknown) => {
			const code = poolErrorCode(error);
			if (code !== 'UNKNOWN_JOB' && code !== 'EXPIRED_JOB') throw error; // only a missing job is a failed slot
			return (await resolvedOutcome({ ...slot, jobId }, signal, options)) ?? failedByError<Result>(slot, error, redact, 'expired');
		},
	);
}

/** A missing job resolved elsewhere (the spec's hook): its outcome, a failed slot when it rejects, or undefined. */
async function resolvedOutcome<Result extends CollectableResult>(
	slot: Slot & { jobId: string },
	signal: AbortSignal,
	options: WaitForSlotsOptions<Result>,
): Promise<SlotOutcome<Result> | undefined> {
	if (!options.resolveUnknown) return undefined;
	const startedAt = Date.now();
	let result: Result | undefined;
	try {
		result = await options.resolveUnknown(slot, signal);
	} catch (error) {
		// The collector turns this into a node error (runCollector).
		// eslint-disable-next-line @n8n/community-nodes/require-node-api-error
		if (signal.aborted) throw new PoolCancelledError('Cancelled while resolving a task after a restart');
		return failedByError(slot, error, options.redact, 'unknown_job');
	}
	if (!result) return undefined;
	const finishedAt = Date.now();
	const snapshot = { state: 'succeeded', result, attempts: 0, timings: { queuedAt: startedAt, startedAt, finishedAt } };
	return outcomeOf(slot, snapshot as JobSnapshot<Result>, options.redact);
}

/** A failed slot from an error (its job unknown or expired, or its resolution rejected), naming input, item and slot. */
function failedByError<Result extends CollectableResult>(slot: Slot, error: unknown, redact: (text: string) => string, fallbackKind: string): SlotOutcome<Result> {
	const { message, kind, taskId, cost } = describeJobError(error, redact);
	const failed = failedSlot<Result>(slot, `The task at ${slotPlace(slot)}: ${message}`, kind ?? fallbackKind);
	return { ...failed, ...(cost === undefined ? {} : { cost }), ...(taskId ? { taskId } : {}) };
}

export interface WaitForSlotsOptions<Result extends CollectableResult = CollectableResult> {
	failFast: boolean;
	/** Resolves a task whose job the pool does not know (n8n restarted; see CollectorSpec.resolveUnknownJob); undefined keeps it a failed slot. */
	resolveUnknown?: (slot: Slot & { jobId: string }, signal: AbortSignal) => Promise<Result | undefined>;
	/** The execution's cancel signal: stops the wait at once. */
	signal?: AbortSignal;
	/** Removes secrets from error text that did not come redacted from the job. */
	redact: (text: string) => string;
	/** Told each slot's outcome as soon as it is known (e.g. to hand its image to n8n while others still run). */
	onOutcome?: (outcome: SlotOutcome<Result>) => void;
}

/**
 * Wait for every slot's job, in any order, and return outcomes in slot order.
 * A slot without a job (submit-side error, unknown or expired job) is a failed slot.
 * Fail fast: the first failed or cancelled slot cancels the other slots'
 * still-queued jobs (never sent upstream) and rejects with SlotFailedError.
 * Rejects with PoolCancelledError when `signal` fires. Leaves no listener on `signal`.
 */
export async function waitForSlots<Result extends CollectableResult>(
	pool: WorkerPool,
	slots: readonly Slot[],
	options: WaitForSlotsOptions<Result>,
): Promise<Array<SlotOutcome<Result>>> {
	// Our own signal: one listener per slot's wait, each removed when that wait ends.
	const stop = new AbortController();
	setMaxListeners(slots.length + 1, stop.signal);
	const onCancel = () => stop.abort();
	if (options.signal?.aborted) stop.abort();
	else options.signal?.addEventListener('abort', onCancel, { once: true });
	let firstFailure: SlotOutcome<Result> | undefined;

	let outcomes: Array<PromiseSettledResult<SlotOutcome<Result>>>;
	try {
		outcomes = await Promise.allSettled(
			slots.map(async (slot) => {
				const outcome = await waitForSlot<Result>(pool, slot, stop.signal, options);
				options.onOutcome?.(outcome);
				if (options.failFast && !firstFailure && (outcome.status === 'failed' || outcome.status === 'cancelled')) {
					firstFailure = outcome;
					stop.abort();
				}
				return outcome;
			}),
		);
	} finally {
		options.signal?.removeEventListener('abort', onCancel);
	}

	if (options.signal?.aborted) throw new PoolCancelledError('Cancelled: the n8n execution was stopped while the collector waited');
	if (firstFailure) {
		const jobIds = slots.flatMap((slot) => (slot.jobId === undefined ? [] : [slot.jobId]));
		pool.cancelJobs(jobIds, `Cancelled because slot ${firstFailure.slot.slot} failed (fail fast)`, { running: false });
		throw new SlotFailedError(firstFailure);
	}
	return outcomes.map((settled) => {
		if (settled.status === 'rejected') throw settled.reason;
		return settled.value;
	});
}
