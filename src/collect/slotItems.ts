import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type IPairedItemData,
} from 'n8n-workflow';

import type { CollectableResult, CollectorSpec, SlotFiles } from './collectorSpec';
import type { CollectorParameters } from './parameters';
import { slotRow, type CollectReport } from './report';
import type { Slot } from './slots';
import type { SlotOutcome } from './waitForSlots';

export function pairedItemOf(slot: Slot): IPairedItemData {
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

/** The collector's "Report" output item (`report`, made of `outcomes`), paired to every slot's task item. */
export function reportItem(report: CollectReport, outcomes: readonly SlotOutcome[]): INodeExecutionData {
	return {
		json: report as unknown as IDataObject,
		pairedItem: outcomes.map((outcome) => pairedItemOf(outcome.slot)),
	};
}
