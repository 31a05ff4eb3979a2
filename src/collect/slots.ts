import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';

import type { JobKind } from '../pool';
import { readTaskItemJson, type TaskItemJson } from '../twin/taskItem';

/** The most tasks one collector takes, like the ComfyUI collector's 30 sockets. */
export const MAX_SLOTS = 30;

/** One task in the collector: slot numbers run 1…N across inputs in order. */
export interface Slot {
	slot: number;
	inputIndex: number;
	itemIndex: number;
	task: TaskItemJson;
}

function inputItems(ctx: IExecuteFunctions, inputIndex: number): INodeExecutionData[] {
	try {
		return ctx.getInputData(inputIndex) ?? [];
	} catch {
		return []; // an input with nothing connected
	}
}

/** The job ids of every task item on the collector's inputs, valid slot or not. */
export function receivedJobIds(ctx: IExecuteFunctions, numberInputs: number): string[] {
	const ids: string[] = [];
	for (let inputIndex = 0; inputIndex < numberInputs; inputIndex++) {
		for (const item of inputItems(ctx, inputIndex)) {
			const task = readTaskItemJson(item.json);
			if (task) ids.push(task.jobId);
		}
	}
	return ids;
}

/**
 * Number the collector's input items into slots, input 1's items first, and
 * check that each is a task of the expected kind. Errors name input, item and slot.
 */
export function gatherSlots(ctx: IExecuteFunctions, numberInputs: number, kind: JobKind): Slot[] {
	const slots: Slot[] = [];
	let total = 0;
	const perInput: INodeExecutionData[][] = [];
	for (let inputIndex = 0; inputIndex < numberInputs; inputIndex++) {
		const items = inputItems(ctx, inputIndex);
		perInput.push(items);
		total += items.length;
	}
	if (total > MAX_SLOTS) {
		throw new NodeOperationError(
			ctx.getNode(),
			`${total} tasks reached this collector, but one Concurrent Collect takes at most ${MAX_SLOTS}`,
			{
				description: `Split the batch: put a Loop Over Items node (batch size ${MAX_SLOTS}) before the submit node, and loop back from after this collector. Lowering COMFLY_IMAGE_CONCURRENCY does not change this limit.`,
			},
		);
	}
	perInput.forEach((items, inputIndex) => {
		items.forEach((item, itemIndex) => {
			const slot = slots.length + 1;
			const where = `input ${inputIndex + 1}, item ${itemIndex} (slot ${slot})`;
			const task = readTaskItemJson(item.json);
			if (!task) {
				throw new NodeOperationError(ctx.getNode(), `The item at ${where} is not a task`, {
					itemIndex,
					description:
						'Concurrent Collect takes the output of a Concurrent Submit node. Connect a FLUX 3 Image Concurrent Submit node to this input.',
				});
			}
			if (task.kind !== kind) {
				throw new NodeOperationError(
					ctx.getNode(),
					`The item at ${where} is a ${task.kind} task; this collector collects ${kind} tasks`,
					{ itemIndex },
				);
			}
			slots.push({ slot, inputIndex, itemIndex, task });
		});
	});
	return slots;
}
