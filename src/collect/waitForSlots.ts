import { setMaxListeners } from 'node:events';

import { PoolCancelledError, poolErrorCode, type JobSnapshot, type WorkerPool } from '../pool';
import type { CollectableResult } from './collectorSpec';
import { describeJobError } from './describeJobError';
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

/** How one slot ended. */
export interface SlotOutcome<Result extends CollectableResult = CollectableResult> {
	slot: Slot;
	status: SlotStatus;
	taskId?: string;
	error?: string;
	errorKind?: string;
	result?: Result;
	timings: SlotTimings;
	attempts: number;
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
	redact: (text: string) => string,
): Promise<SlotOutcome<Result>> {
	if (slot.jobId === undefined) {
		const reason = redact(slot.submitError ?? 'unknown error');
		return failedSlot(slot, `The submit node could not submit the item at ${slotPlace(slot)}: ${reason}`, 'submit_failed');
	}
	return await pool.wait<Result>(slot.jobId, signal).then(
		(snapshot) => outcomeOf(slot, snapshot, redact),
		async (error: unknown) => missingJobOutcome<Result>(slot, error, redact) ?? (await Promise.reject(error)),
	);
}

/** An unknown or expired job is a failed slot naming input, item and slot; other errors are not. */
function missingJobOutcome<Result extends CollectableResult>(
	slot: Slot,
	error: unknown,
	redact: (text: string) => string,
): SlotOutcome<Result> | undefined {
	const code = poolErrorCode(error);
	if (code !== 'UNKNOWN_JOB' && code !== 'EXPIRED_JOB') return undefined;
	const described = describeJobError(error, redact);
	return failedSlot(slot, `The task at ${slotPlace(slot)}: ${described.message}`, described.kind ?? 'expired');
}

export interface WaitForSlotsOptions {
	failFast: boolean;
	/** The execution's cancel signal: stops the wait at once. */
	signal?: AbortSignal;
	/** Removes secrets from error text that did not come redacted from the job. */
	redact: (text: string) => string;
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
	options: WaitForSlotsOptions,
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
				const outcome = await waitForSlot<Result>(pool, slot, stop.signal, options.redact);
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
