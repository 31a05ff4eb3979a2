import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import { readFailedTaskItemJson, readTaskItemJson } from '../twin/taskItem';
import { MAX_INPUTS } from './collectorDescription';
import type { CollectableResult, CollectorSpec } from './collectorSpec';

/**
 * One task in the collector: slot numbers run 1…N across inputs in order. A task the
 * submit node could not submit ("On Error: Continue") has no job, only `submitError`.
 */
export interface Slot {
	slot: number;
	inputIndex: number;
	itemIndex: number;
	jobId?: string;
	submitError?: string;
}

/** Where a slot came from, for messages: "input 2, item 0 (slot 3)". */
export function slotPlace(slot: Pick<Slot, 'slot' | 'inputIndex' | 'itemIndex'>): string {
	return `input ${slot.inputIndex + 1}, item ${slot.itemIndex} (slot ${slot.slot})`;
}

function inputItems(ctx: IExecuteFunctions, inputIndex: number): INodeExecutionData[] {
	try {
		return ctx.getInputData(inputIndex) ?? [];
	} catch {
		return []; // an input with nothing connected
	}
}

/** The job ids of every task item on any of the collector's inputs, valid slot or not. */
export function receivedJobIds(ctx: IExecuteFunctions): string[] {
	const ids: string[] = [];
	for (let inputIndex = 0; inputIndex < MAX_INPUTS; inputIndex++) {
		for (const item of inputItems(ctx, inputIndex)) {
			const task = readTaskItemJson(item.json);
			if (task) ids.push(task.jobId);
		}
	}
	return ids;
}

/** The slot of one input item; throws naming input, item and slot when it is not a task of `spec.kind`. */
function slotOf<Result extends CollectableResult>(
	ctx: IExecuteFunctions,
	place: Pick<Slot, 'slot' | 'inputIndex' | 'itemIndex'>,
	json: unknown,
	spec: CollectorSpec<Result>,
): Slot {
	const task = readTaskItemJson(json) ?? readFailedTaskItemJson(json);
	if (!task) {
		throw new NodeOperationError(ctx.getNode(), `The item at ${slotPlace(place)} is not a task`, {
			itemIndex: place.itemIndex,
			description: `${spec.identity.displayName} takes the output of a Concurrent Submit node. Connect a ${spec.identity.submitNodeName} node to this input.`,
		});
	}
	if (task.kind !== spec.kind) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The item at ${slotPlace(place)} is ${/^[aeiou]/.test(task.kind) ? 'an' : 'a'} ${task.kind} task; this collector collects ${spec.kind} tasks`,
			{ itemIndex: place.itemIndex },
		);
	}
	return 'jobId' in task ? { ...place, jobId: task.jobId } : { ...place, submitError: task.error };
}

/**
 * Number the collector's input items into slots, input 1's items first, and
 * check that each is a task of the expected kind. Errors name input, item and slot.
 */
export function gatherSlots<Result extends CollectableResult>(
	ctx: IExecuteFunctions,
	numberInputs: number,
	spec: CollectorSpec<Result>,
): Slot[] {
	const perInput = Array.from({ length: numberInputs }, (_, inputIndex) => inputItems(ctx, inputIndex));
	const total = perInput.reduce((sum, items) => sum + items.length, 0);
	const max = spec.maxSlots;
	if (total > max) {
		throw new NodeOperationError(ctx.getNode(), `${total} tasks reached this collector, but one ${spec.identity.displayName} takes at most ${max}`, {
			description: `Split the batch: put a Loop Over Items node (batch size ${max}) before the submit node, and loop back from after this collector. Lowering COMFLY_${spec.kind.toUpperCase()}_CONCURRENCY does not change this limit.`,
		});
	}
	const slots: Slot[] = [];
	perInput.forEach((items, inputIndex) => {
		items.forEach((item, itemIndex) => {
			slots.push(slotOf(ctx, { slot: slots.length + 1, inputIndex, itemIndex }, item.json, spec));
		});
	});
	return slots;
}
