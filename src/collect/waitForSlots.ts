import { setMaxListeners } from 'node:events';

import { PoolCancelledError, type JobSnapshot, type WorkerPool } from '../pool';
import { MAX_SIGNAL_LISTENERS } from '../twin/executionCancel';
import type { ImageJobResult } from '../fluxN8n/imageJobResult';
import { describeJobError } from './describeJobError';
import type { Slot } from './slots';

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
export interface SlotOutcome {
	slot: Slot;
	status: SlotStatus;
	taskId?: string;
	error?: string;
	errorKind?: string;
	result?: ImageJobResult;
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
export function outcomeOf(slot: Slot, snapshot: JobSnapshot<ImageJobResult>): SlotOutcome {
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
	const described = describeJobError(snapshot.error);
	return {
		...base,
		status: snapshot.state === 'cancelled' ? 'cancelled' : 'failed',
		taskId: described.taskId,
		error: described.message,
		errorKind: described.kind,
	};
}

export interface WaitForSlotsOptions {
	failFast: boolean;
	/** The execution's cancel signal: stops the wait at once. */
	signal?: AbortSignal;
}

/**
 * Wait for every slot's job, in any order, and return outcomes in slot order.
 * Fail fast: the first failed or cancelled slot cancels the other slots'
 * still-queued jobs (never sent upstream) and rejects with SlotFailedError.
 * Rejects with PoolCancelledError when `signal` fires.
 */
export async function waitForSlots(
	pool: WorkerPool,
	slots: readonly Slot[],
	options: WaitForSlotsOptions,
): Promise<SlotOutcome[]> {
	const stop = new AbortController();
	const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
	setMaxListeners(MAX_SIGNAL_LISTENERS, signal);
	let firstFailure: SlotOutcome | undefined;

	const outcomes = await Promise.allSettled(
		slots.map(async (slot) => {
			const outcome = outcomeOf(slot, await pool.wait<ImageJobResult>(slot.task.jobId, signal));
			if (options.failFast && !firstFailure && (outcome.status === 'failed' || outcome.status === 'cancelled')) {
				firstFailure = outcome;
				stop.abort();
			}
			return outcome;
		}),
	);

	if (options.signal?.aborted) throw new PoolCancelledError('Cancelled: the n8n execution was stopped while the collector waited');
	if (firstFailure) {
		pool.cancelJobs(
			slots.map((slot) => slot.task.jobId),
			`Cancelled because slot ${firstFailure.slot.slot} failed (fail fast)`,
			{ running: false },
		);
		throw new SlotFailedError(firstFailure);
	}
	return outcomes.map((settled) => {
		if (settled.status === 'rejected') throw settled.reason;
		return settled.value;
	});
}
