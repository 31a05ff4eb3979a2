import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type IPairedItemData,
} from 'n8n-workflow';
import { z } from 'zod';

import { failedSlotPng } from '../images/solidPng';
import { ExpiredJobError, poolFor, UnknownJobError } from '../pool';
import { toNodeError } from '../n8n/nodeErrors';
import { watchExecutionCancel } from '../twin/executionCancel';
import { buildReport, slotRow } from './report';
import { gatherSlots, receivedJobIds, type Slot } from './slots';
import { SlotFailedError, waitForSlots, type SlotOutcome } from './waitForSlots';

const collectorParametersSchema = z.object({
	numberInputs: z.number().int().min(1).max(10),
	failureMode: z.enum(['failFast', 'placeholder']),
	binaryPropertyName: z.string().trim().min(1, 'must not be empty'),
});
type CollectorParameters = z.infer<typeof collectorParametersSchema>;

function readParameters(ctx: IExecuteFunctions): CollectorParameters {
	const raw = {
		numberInputs: ctx.getNodeParameter('numberInputs', 0, 1),
		failureMode: ctx.getNodeParameter('failureMode', 0, 'failFast'),
		binaryPropertyName: ctx.getNodeParameter('binaryPropertyName', 0, 'data'),
	};
	const parsed = collectorParametersSchema.safeParse(raw);
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		throw new NodeOperationError(ctx.getNode(), `Invalid parameter '${issue.path.join('.')}': ${issue.message}`);
	}
	return parsed.data;
}

function pairedItemOf(slot: Slot): IPairedItemData {
	return { item: slot.itemIndex, input: slot.inputIndex };
}

/** Fail early, naming input, item and slot, when a task's job is unknown or expired. */
function assertJobsKnown(ctx: IExecuteFunctions, slots: readonly Slot[]): void {
	const pool = poolFor('image');
	for (const slot of slots) {
		try {
			pool.get(slot.task.jobId);
		} catch (error) {
			if (error instanceof UnknownJobError || error instanceof ExpiredJobError) {
				throw new NodeOperationError(
					ctx.getNode(),
					`The task at input ${slot.inputIndex + 1}, item ${slot.itemIndex} (slot ${slot.slot}): ${error.message}`,
					{
						itemIndex: slot.itemIndex,
						description:
							'Tasks live in this n8n process until collected and expire after a while (COMFLY_RESULT_TTL_SECONDS). Run the submit node again to create new jobs.',
					},
				);
			}
			throw toNodeError(ctx.getNode(), error, slot.itemIndex);
		}
	}
}

async function slotItem(
	ctx: IExecuteFunctions,
	outcome: SlotOutcome,
	params: CollectorParameters,
): Promise<INodeExecutionData> {
	const json = slotRow(outcome) as unknown as IDataObject;
	const pairedItem = pairedItemOf(outcome.slot);
	const fileBase = `slot-${String(outcome.slot.slot).padStart(2, '0')}`;
	if (outcome.result) {
		const { buffer, fileExtension, mimeType } = outcome.result;
		const binary = await ctx.helpers.prepareBinaryData(buffer, `${fileBase}.${fileExtension}`, mimeType);
		return { json, binary: { [params.binaryPropertyName]: binary }, pairedItem };
	}
	const toErrorOutput = ctx.getNode().onError === 'continueErrorOutput';
	if (!toErrorOutput) {
		// Placeholder mode, or "continue (regular output)": the slot stays in place with status failed.
		if (params.failureMode !== 'placeholder') return { json, pairedItem };
		const binary = await ctx.helpers.prepareBinaryData(failedSlotPng(), `${fileBase}.png`, 'image/png');
		return { json, binary: { [params.binaryPropertyName]: binary }, pairedItem };
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
 * The Concurrent Collect Images node's work: gather the tasks into slots, wait
 * for every job, and return one item per slot in slot order plus a report.
 */
export async function collectImages(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const params = readParameters(ctx);
	const pool = poolFor('image');
	const signal = ctx.getExecutionCancelSignal();
	watchExecutionCancel(signal, ctx.getExecutionId(), pool);

	let slots: Slot[];
	try {
		slots = gatherSlots(ctx, params.numberInputs, 'image');
		assertJobsKnown(ctx, slots);
	} catch (error) {
		// Nothing will collect these tasks: their jobs still waiting for a worker are never sent.
		pool.cancelJobs(receivedJobIds(ctx, params.numberInputs), 'the collector refused its input', { running: false });
		throw toNodeError(ctx.getNode(), error);
	}
	const continueOnFail = ctx.continueOnFail();

	let outcomes: SlotOutcome[];
	try {
		outcomes = await waitForSlots(pool, slots, {
			failFast: params.failureMode === 'failFast' && !continueOnFail,
			signal,
		});
	} catch (error) {
		if (error instanceof SlotFailedError) {
			const { slot } = error.outcome;
			throw new NodeOperationError(ctx.getNode(), error.message, {
				itemIndex: slot.itemIndex,
				description: `Slot ${slot.slot} is input ${slot.inputIndex + 1}, item ${slot.itemIndex}. The other slots' queued jobs were cancelled before reaching the API. Set Failure Mode to Placeholder to let the batch complete.`,
			});
		}
		throw toNodeError(ctx.getNode(), error);
	}

	const images = await Promise.all(outcomes.map(async (outcome) => await slotItem(ctx, outcome, params)));
	const report: INodeExecutionData = {
		json: buildReport(outcomes) as unknown as IDataObject,
		pairedItem: slots.map(pairedItemOf),
	};
	return [images, [report]];
}
