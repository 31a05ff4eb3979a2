import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { toNodeError } from '../n8n/nodeErrors';
import { poolFor, type JobKind } from '../pool';
import type { ConcurrentSource } from './concurrentSource';
import { releaseWhenFinal, watchExecutionCancel } from './executionCancel';
import { makeFailedTaskItemJson, makeTaskItemJson } from './taskItem';

/** What the twin changes besides outputs and execute: its identity. */
export interface TwinIdentity {
	name: string;
	displayName: string;
	description: string;
	icon: INodeTypeDescription['icon'];
	defaultName: string;
}

/**
 * Make the concurrent twin of a serial node's description: a deep copy of the
 * same property list (so a parameter added to the serial node appears here with
 * no other edit), with only identity, outputs and hints changed.
 */
export function makeConcurrentTwinDescription(
	serial: INodeTypeDescription,
	identity: TwinIdentity,
	kind: JobKind = 'image',
): INodeTypeDescription {
	const copy = structuredClone(serial);
	const [things, collector] = kind === 'video' ? ['videos', 'Concurrent Collect Videos'] : ['images', 'Concurrent Collect Images'];
	return {
		...copy,
		name: identity.name,
		displayName: identity.displayName,
		description: identity.description,
		icon: identity.icon,
		defaults: { ...copy.defaults, name: identity.defaultName },
		subtitle: '={{"task · " + $parameter["resolution"]}}',
		outputs: [NodeConnectionTypes.Main],
		outputNames: ['Task'],
		// Not an AI Agent tool: it returns task items an agent cannot use (the serial node is the tool).
		usableAsTool: undefined,
		hints: [
			...(copy.hints ?? []),
			{
				message:
					`This node outputs tasks, not ${things}. Connect it to a ${collector} node, which waits for the jobs and returns the ${things} in order.`,
				type: 'info',
				location: 'outputPane',
				whenToDisplay: 'afterExecution',
			},
		],
	};
}

type PreparedItem<Prepared> = { itemIndex: number; value: Prepared } | { itemIndex: number; error: Error };

/**
 * Validate every item before submitting any: a bad item 7 must not leave items
 * 1-6 running (and paid for) behind an error. With continue-on-fail a bad item
 * is kept as its error.
 */
async function prepareItems<Prepared, Result>(
	ctx: IExecuteFunctions,
	source: ConcurrentSource<Prepared, Result>,
	count: number,
): Promise<Array<PreparedItem<Prepared>>> {
	const prepared: Array<PreparedItem<Prepared>> = [];
	for (let itemIndex = 0; itemIndex < count; itemIndex++) {
		try {
			prepared.push({ itemIndex, value: await source.prepare(ctx, itemIndex) });
		} catch (error) {
			const nodeError = toNodeError(ctx.getNode(), error, itemIndex, source.errorHints);
			if (!ctx.continueOnFail()) throw nodeError;
			prepared.push({ itemIndex, error: nodeError });
		}
	}
	return prepared;
}

/** A bad item under continue-on-fail: "Continue (using error output)" routes `{ error }` there; otherwise the
 *  item's error takes the place of its task, and the collector makes it a failed slot. */
function failedItemJson<Prepared, Result>(ctx: IExecuteFunctions, source: ConcurrentSource<Prepared, Result>, error: Error) {
	const { name: node, onError } = ctx.getNode();
	const failed = { kind: source.outputKind, model: source.model, node, error: error.message };
	return onError === 'continueErrorOutput' ? { error: failed.error } : makeFailedTaskItemJson(failed);
}

/** Hand one prepared item to the pool (waiting at its capacity gate) and return its task item's json. */
async function submitItem<Prepared, Result>(
	ctx: IExecuteFunctions,
	source: ConcurrentSource<Prepared, Result>,
	entry: { itemIndex: number; value: Prepared },
	jobIds: string[],
) {
	const pool = poolFor(source.outputKind);
	const node = ctx.getNode().name;
	let jobId: string;
	try {
		jobId = await pool.submit((job) => source.run(entry.value, job), {
			owner: ctx.getExecutionId(),
			signal: ctx.getExecutionCancelSignal(),
			sizeOf: source.sizeOf,
			meta: { node, itemIndex: entry.itemIndex },
		});
	} catch (error) {
		// Only a cancelled execution ends the wait at the capacity gate.
		throw toNodeError(ctx.getNode(), error, entry.itemIndex, source.errorHints);
	}
	jobIds.push(jobId);
	return makeTaskItemJson({ jobId, kind: source.outputKind, model: source.model, node, submittedAt: new Date() });
}

/**
 * Make the concurrent twin node type of a serial source: each input item is
 * validated, handed to the pool of the source's output kind, and becomes a task
 * item at once. The node returns as soon as every job is admitted; the
 * execution's cancel signal keeps reaching its jobs until they are final.
 */
export function makeConcurrentTwin<Prepared, Result>(
	source: ConcurrentSource<Prepared, Result>,
	identity: TwinIdentity,
): new () => INodeType {
	const description = makeConcurrentTwinDescription(source.description, identity, source.outputKind);

	return class ConcurrentTwin implements INodeType {
		description = description;

		methods = source.methods;

		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const pool = poolFor(source.outputKind);
			const release = watchExecutionCancel(this.getExecutionCancelSignal(), this.getExecutionId(), pool);
			const jobIds: string[] = [];
			try {
				const prepared = await prepareItems(this, source, this.getInputData().length);
				const output: INodeExecutionData[] = [];
				for (const entry of prepared) {
					const json = 'error' in entry ? failedItemJson(this, source, entry.error) : await submitItem(this, source, entry, jobIds);
					output.push({ json, pairedItem: { item: entry.itemIndex } });
				}
				return [output];
			} finally {
				// The watch on the execution's signal is needed until this run's jobs are final.
				releaseWhenFinal(pool, jobIds, release);
			}
		}
	};
}
