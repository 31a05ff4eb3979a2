import pLimit from 'p-limit';
import { NodeOperationError, type IDataObject, type IExecuteFunctions, type INodeExecutionData, type INodeType, type IPairedItemData } from 'n8n-workflow';

import { poolFor, type WorkerPool } from '../pool';
import { toNodeError } from '../n8n/nodeErrors';
import { watchExecutionCancel } from '../twin/executionCancel';
import { makeCollectorDescription } from './collectorDescription';
import type { CollectableResult, CollectorSpec, SlotFiles } from './collectorSpec';
import { readCollectorParameters, type CollectorParameters } from './parameters';
import { buildReport, slotRow, unsuccessfulSlotsHint } from './report';
import { gatherSlots, receivedJobIds, type Slot } from './slots';
import { SlotFailedError, waitForSlots, type SlotOutcome } from './waitForSlots';

function pairedItemOf(slot: Slot): IPairedItemData {
	return { item: slot.itemIndex, input: slot.inputIndex };
}

/** One output item per slot: its row, its binary (or the failed slot's), paired to its task item. */
export async function slotItem<Result extends CollectableResult>(
	ctx: IExecuteFunctions,
	spec: CollectorSpec<Result>,
	outcome: SlotOutcome<Result>,
	params: CollectorParameters,
): Promise<INodeExecutionData> {
	const json = slotRow(outcome) as unknown as IDataObject;
	const pairedItem = pairedItemOf(outcome.slot);
	const fileBase = `slot-${String(outcome.slot.slot).padStart(2, '0')}`;
	const withBinary = (files: SlotFiles) => ({ json, binary: { ...files.with, [params.binaryPropertyName]: files.result }, pairedItem });
	if (outcome.result) {
		const files = await spec.toBinary(ctx, outcome.result, fileBase);
		return files ? withBinary(files) : { json, pairedItem };
	}
	const toErrorOutput = ctx.getNode().onError === 'continueErrorOutput';
	if (!toErrorOutput) {
		// Placeholder mode, or "continue (regular output)": the slot stays in place with status failed.
		if (params.failureMode !== 'placeholder' || !spec.failedSlot) return { json, pairedItem };
		return withBinary({ result: await spec.failedSlot.toBinary(ctx, fileBase) });
	}
	// "Continue (using error output)": n8n moves an item with `error` set to the error output
	// (its json becomes { error: message }, paired to the task item).
	const error = new NodeOperationError(
		ctx.getNode(),
		`Slot ${outcome.slot.slot} ${outcome.status}: ${outcome.error ?? 'unknown error'}`,
		{ itemIndex: outcome.slot.itemIndex },
	);
	return { json, pairedItem, error };
}

/**
 * Read the parameters and number the slots. On any error, first cancel the still-queued
 * jobs of every task received (nothing will collect them, so they are never sent), then throw.
 */
function prepare<Result extends CollectableResult>(
	ctx: IExecuteFunctions,
	spec: CollectorSpec<Result>,
	pool: WorkerPool,
): { params: CollectorParameters; slots: Slot[] } {
	try {
		const params = readCollectorParameters(ctx);
		return { params, slots: gatherSlots(ctx, params.numberInputs, spec) };
	} catch (error) {
		pool.cancelJobs(receivedJobIds(ctx), 'the collector refused its input', { running: false });
		throw toNodeError(ctx.getNode(), error);
	}
}

async function waitOrFail<Result extends CollectableResult>(
	ctx: IExecuteFunctions,
	spec: CollectorSpec<Result>,
	pool: WorkerPool,
	slots: readonly Slot[],
	params: CollectorParameters,
	onOutcome: (outcome: SlotOutcome<Result>) => void,
): Promise<Array<SlotOutcome<Result>>> {
	try {
		return await waitForSlots<Result>(pool, slots, {
			onOutcome,
			failFast: params.failureMode === 'failFast' && !ctx.continueOnFail(),
			signal: ctx.getExecutionCancelSignal(),
			redact: spec.redact,
			resolveUnknown:
				spec.resolveUnknownJob &&
				(async (slot, signal) => await spec.resolveUnknownJob?.(ctx, { jobId: slot.jobId, itemIndex: slot.itemIndex }, signal)),
		});
	} catch (error) {
		if (!(error instanceof SlotFailedError)) throw toNodeError(ctx.getNode(), error);
		const { slot } = error.outcome;
		throw new NodeOperationError(ctx.getNode(), error.message, {
			itemIndex: slot.itemIndex,
			description: `Slot ${slot.slot} is input ${slot.inputIndex + 1}, item ${slot.itemIndex}. The other slots' queued jobs were cancelled before reaching the API. Set Failure Mode to Placeholder to let the batch complete.`,
		});
	}
}

/** Slots handed to n8n at once: streams from disk overlap their reads and n8n's writes; memory stays a few chunks per slot. */
export const HAND_OVER_CONCURRENCY = 3;

/**
 * Each slot's output item is made (its image handed to n8n's binary store) as soon as its job ends, in the order
 * they end, while the other jobs still run: after the last job only its own image (and any still in hand) is left
 * to hand over. At most {@link HAND_OVER_CONCURRENCY} at a time, so results read back from a store become n8n's
 * binaries a few at a time (the bytes of all slots are never in memory at once next to their copies).
 */
function slotHandOver<Result extends CollectableResult>(ctx: IExecuteFunctions, spec: CollectorSpec<Result>, params: CollectorParameters) {
	const made = new Map<SlotOutcome<Result>, Promise<INodeExecutionData>>();
	const limit = pLimit(HAND_OVER_CONCURRENCY);
	const make = async (outcome: SlotOutcome<Result>) => await slotItem(ctx, spec, outcome, params);
	return {
		start(outcome: SlotOutcome<Result>): void {
			const item = limit(async () => await make(outcome));
			item.catch(() => undefined); // awaited (and thrown) by item(); not unhandled when the wait fails first
			made.set(outcome, item);
		},
		item: async (outcome: SlotOutcome<Result>): Promise<INodeExecutionData> => await (made.get(outcome) ?? make(outcome)),
	};
}

/**
 * A collector node's work: gather the tasks into slots, wait for every job, and return
 * one item per slot in slot order plus a report. Delivered results are marked collected,
 * so the pool's memory bound may drop them from now on.
 */
async function runCollector<Result extends CollectableResult>(
	ctx: IExecuteFunctions,
	spec: CollectorSpec<Result>,
): Promise<INodeExecutionData[][]> {
	const pool = poolFor(spec.kind);
	const release = watchExecutionCancel(ctx.getExecutionCancelSignal(), ctx.getExecutionId(), pool);
	try {
		const { params, slots } = prepare(ctx, spec, pool);
		const handOver = slotHandOver(ctx, spec, params);
		const outcomes = await waitOrFail(ctx, spec, pool, slots, params, (outcome) => handOver.start(outcome));
		const items: INodeExecutionData[] = [];
		for (const outcome of outcomes) items.push(await handOver.item(outcome));
		pool.markCollected(outcomes.flatMap((outcome) => (outcome.result && outcome.slot.jobId ? [outcome.slot.jobId] : [])));
		const jobIds = slots.flatMap((slot) => (slot.jobId === undefined ? [] : [slot.jobId]));
		const extras = (await spec.reportExtras?.(ctx, jobIds)) ?? { fields: {}, warnings: [] };
		const report = buildReport(outcomes, [...(spec.reportWarnings?.() ?? []), ...extras.warnings], extras.fields);
		const hint = unsuccessfulSlotsHint(report, spec, params, ctx.getNode().onError === 'continueErrorOutput');
		if (hint) ctx.addExecutionHints(hint);
		// The "Report" output item, paired to every slot's task item.
		return [items, [{ json: report as unknown as IDataObject, pairedItem: outcomes.map((outcome) => pairedItemOf(outcome.slot)) }]];
	} finally {
		release();
	}
}

/**
 * Make a collector node type for one job kind: inputs 1–10 like n8n's Merge v3, Failure Mode,
 * the binary field, a Report output and error-output support; the spec says how a result
 * becomes a binary and what a failed slot gets.
 */
export function makeConcurrentCollector<Result extends CollectableResult>(
	spec: CollectorSpec<Result>,
): new () => INodeType {
	const description = makeCollectorDescription(spec);

	return class ConcurrentCollector implements INodeType {
		description = description;

		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			return await runCollector(this, spec);
		}
	};
}
