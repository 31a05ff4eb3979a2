import type { NodeExecutionHint } from 'n8n-workflow';

import { capitalised } from './collectorDescription';
import type { CollectableResult, CollectorSpec } from './collectorSpec';
import type { CollectorParameters } from './parameters';
import type { SlotOutcome, SlotStatus } from './waitForSlots';

/** One slot's row: its place, its job and how it ended (as in SlotOutcome; `cost` null when the API did not say). */
export interface SlotReportRow extends Pick<SlotOutcome, 'status' | 'taskId' | 'error' | 'errorKind' | 'timings' | 'attempts' | 'cached'> {
	slot: number;
	input: number;
	item: number;
	/** Absent for a task the submit node could not submit. */
	jobId?: string;
	cost: number | null;
	draft?: true;
}

export interface CollectReport {
	total: number;
	counts: Record<SlotStatus, number>;
	/** Slots served from the durable store (no new job). */
	cached: number;
	/** What this batch's new jobs cost (the slots' known costs added up); null when no slot's cost is known. */
	cost: number | null;
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
		cost: outcome.cost ?? null,
		...(outcome.draft ? { draft: true as const } : {}),
	};
}

/** The batch's cost: the known costs added up (null when none is known), and a note when some slots' cost is unknown. */
export function batchCost(outcomes: readonly SlotOutcome[]): { cost: number | null; warning?: string } {
	const known = outcomes.filter((outcome) => typeof outcome.cost === 'number');
	const total = Math.round(known.reduce((sum, outcome) => sum + (outcome.cost as number), 0) * 1e6) / 1e6;
	const delivered = (outcome: SlotOutcome) => outcome.status === 'success' || outcome.status === 'skipped_error';
	const unknownPaid = outcomes.filter((outcome) => (outcome.cost === null || outcome.cost === undefined) && delivered(outcome));
	if (known.length === 0) return { cost: null };
	if (unknownPaid.length === 0) return { cost: total };
	// Unknown: the API did not say, or the job was sent by an earlier run that stopped (n8n restarted) and this run
	// picked it up from the journal, which keeps the task but not the submit answer's cost.
	const many = unknownPaid.length !== 1;
	return {
		cost: total,
		warning:
			`${unknownPaid.length} delivered slot${many ? 's have' : ' has'} no known cost (the API did not report it, or the job was sent by an earlier run ` +
			`that stopped, e.g. n8n restarted, and this run picked it up): cost adds up the other slots only.`,
	};
}

/**
 * The collector's "Report" output: counts, the batch's cost and one row per slot; `extra` fields (e.g. what the
 * account spent in its window and its limits) go between the warnings and the slots.
 */
export function buildReport(outcomes: readonly SlotOutcome[], warnings: readonly string[] = [], extra: Record<string, unknown> = {}): CollectReport {
	const counts: Record<SlotStatus, number> = { success: 0, failed: 0, skipped_error: 0, cancelled: 0 };
	for (const outcome of outcomes) counts[outcome.status]++;
	const { cost, warning } = batchCost(outcomes);
	const notes = [...warnings, ...(warning ? [warning] : [])];
	return {
		total: outcomes.length,
		counts,
		cached: outcomes.filter((outcome) => outcome.cached === true).length,
		cost,
		allSucceeded: counts.success === outcomes.length,
		...(notes.length > 0 ? { warnings: [...new Set(notes)] } : {}),
		...extra,
		slots: outcomes.map(slotRow),
	};
}

/** "2 of 4 slots", "1 of 1 slot". */
const ofSlots = (n: number, total: number) => `${n} of ${total} slot${total === 1 ? '' : 's'}`;

/** What stands in a failed slot's place in this run. */
function failedSlotsGet<Result extends CollectableResult>(spec: CollectorSpec<Result>, params: CollectorParameters, toErrorOutput: boolean): string {
	const { one, many } = spec.identity.noun;
	if (toErrorOutput) return `they left through the error output, not ${capitalised(many)}`;
	if (params.failureMode === 'placeholder' && spec.failedSlot) return `each keeps its place in ${capitalised(many)} with status failed and ${spec.failedSlot.describe}`;
	return `each keeps its place in ${capitalised(many)} with status failed and no ${one}`;
}

/**
 * The hint for a run in which some slots did not succeed; undefined when every slot succeeded. Such a run
 * (Placeholder mode, Skip Error, "On Error: Continue") must not look green: the hint says how many slots failed,
 * what stands in their place, and that the Report output says why. n8n shows it above the node's output
 * (NodeExecutionHint, n8n-workflow 2.0 and later).
 */
export function unsuccessfulSlotsHint<Result extends CollectableResult>(
	report: CollectReport,
	spec: CollectorSpec<Result>,
	params: CollectorParameters,
	toErrorOutput: boolean,
): NodeExecutionHint | undefined {
	const { failed, skipped_error: skipped, cancelled } = report.counts;
	if (failed + skipped + cancelled === 0) return undefined;
	const parts: string[] = [];
	if (failed > 0) parts.push(`${ofSlots(failed, report.total)} failed: ${failedSlotsGet(spec, params, toErrorOutput)}.`);
	if (cancelled > 0) parts.push(`${ofSlots(cancelled, report.total)} ${cancelled === 1 ? 'was' : 'were'} cancelled.`);
	if (skipped > 0) {
		parts.push(`${ofSlots(skipped, report.total)} hit an error that Skip Error turned into a stand-in ${spec.identity.noun.one} (status skipped_error).`);
	}
	parts.push('The Report output says why (slots → error).');
	return { message: parts.join(' '), type: 'warning', location: 'outputPane' };
}
