import type { SlotOutcome, SlotStatus, SlotTimings } from './waitForSlots';

export interface SlotReportRow {
	slot: number;
	input: number;
	item: number;
	status: SlotStatus;
	/** Absent for a task the submit node could not submit. */
	jobId?: string;
	taskId?: string;
	error?: string;
	errorKind?: string;
	timings: SlotTimings;
	attempts: number;
	/** Present when the job says: true = served from the durable store (no new job). */
	cached?: boolean;
}

export interface CollectReport {
	total: number;
	counts: Record<SlotStatus, number>;
	/** Slots served from the durable store (no new job). */
	cached: number;
	/** True when every slot succeeded (skipped_error does not count as success). */
	allSucceeded: boolean;
	/** Present when something needs attention, e.g. the result store could not be used (said once per run). */
	warnings?: string[];
	slots: SlotReportRow[];
}

/** One row per slot for the JSON of a slot item and the report. Error text is already redacted. */
export function slotRow(outcome: SlotOutcome): SlotReportRow {
	return {
		slot: outcome.slot.slot,
		input: outcome.slot.inputIndex + 1,
		item: outcome.slot.itemIndex,
		status: outcome.status,
		...(outcome.slot.jobId === undefined ? {} : { jobId: outcome.slot.jobId }),
		...(outcome.taskId ? { taskId: outcome.taskId } : {}),
		...(outcome.error ? { error: outcome.error } : {}),
		...(outcome.errorKind ? { errorKind: outcome.errorKind } : {}),
		timings: outcome.timings,
		attempts: outcome.attempts,
		...(outcome.cached === undefined ? {} : { cached: outcome.cached }),
	};
}

/** The collector's "Report" output: counts and one row per slot. */
export function buildReport(outcomes: readonly SlotOutcome[], warnings: readonly string[] = []): CollectReport {
	const counts: Record<SlotStatus, number> = { success: 0, failed: 0, skipped_error: 0, cancelled: 0 };
	for (const outcome of outcomes) counts[outcome.status]++;
	return {
		total: outcomes.length,
		counts,
		cached: outcomes.filter((outcome) => outcome.cached === true).length,
		allSucceeded: counts.success === outcomes.length,
		...(warnings.length > 0 ? { warnings: [...new Set(warnings)] } : {}),
		slots: outcomes.map(slotRow),
	};
}
