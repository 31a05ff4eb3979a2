import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { toNodeError } from '../n8n/nodeErrors';
import { poolFor, type JobContext, type JobKind } from '../pool';
import type { ConcurrentSource } from './concurrentSource';
import { releaseWhenFinal, watchExecutionCancel } from './executionCancel';
import { makeFailedTaskItemJson, makeTaskItemJson } from './taskItem';

/** What the twin changes besides outputs and execute: its identity. */
export type TwinIdentity = Pick<INodeTypeDescription, 'name' | 'displayName' | 'description' | 'icon'> & { defaultName: string };

/**
 * Make the concurrent twin of a serial node's description: a deep copy of the
 * same property list (so a parameter added to the serial node appears here with
 * no other edit), with only identity and outputs changed.
 */
export function makeConcurrentTwinDescription(serial: INodeTypeDescription, identity: TwinIdentity): INodeTypeDescription {
	const copy = structuredClone(serial);
	const { defaultName, ...shown } = identity;
	return {
		...copy,
		...shown,
		defaults: { ...copy.defaults, name: defaultName },
		subtitle: twinSubtitle(serial.subtitle),
		outputs: [NodeConnectionTypes.Main],
		outputNames: ['Task'],
		// Not an AI Agent tool: it returns task items an agent cannot use (the serial node is the tool).
		usableAsTool: undefined,
		// The "connect a collector" hint is added by a run that has no collector downstream (hintWhenNoCollector).
		hints: copy.hints ?? [],
	};
}

/**
 * "task · " before what the serial node's subtitle says (its model and size, or mode and resolution): a fixed
 * `$parameter["resolution"]` read "task · undefined" on the canvas for a model without Resolution (FLUX.2).
 */
function twinSubtitle(serial: INodeTypeDescription['subtitle']): string {
	const expression = typeof serial === 'string' ? /^=\{\{([\s\S]*)\}\}$/.exec(serial.trim())?.[1] : undefined;
	if (expression !== undefined) return `={{"task · " + (${expression.trim()})}}`;
	return typeof serial === 'string' && serial !== '' ? `task · ${serial}` : 'task';
}

/** The collector node of each job kind: its type name (after the package prefix) and its display name. */
const COLLECTOR_OF_KIND: Readonly<Record<JobKind, { typeName: string; displayName: string; things: string }>> = {
	image: { typeName: 'concurrentCollect', displayName: 'Concurrent Collect Images', things: 'images' },
	video: { typeName: 'concurrentCollectVideos', displayName: 'Concurrent Collect Videos', things: 'videos' },
};

/** The "connect a collector" hint's text for a submit node of `kind`. */
export function connectCollectorMessage(kind: JobKind): string {
	const { displayName, things } = COLLECTOR_OF_KIND[kind];
	return `This node outputs tasks, not ${things}, and no ${displayName} node is connected after it. Connect one: it waits for the jobs and returns the ${things} in order.`;
}

/**
 * The "connect a collector" hint, only where it helps: after a run that succeeded (n8n records a node's execution
 * hints only when it returns) and only when no enabled collector of its kind is anywhere downstream. The collector
 * is recognised by its node type name, whatever package prefix n8n gives it.
 */
function hintWhenNoCollector(ctx: IExecuteFunctions, kind: JobKind): void {
	const { typeName } = COLLECTOR_OF_KIND[kind];
	if (ctx.getChildNodes(ctx.getNode().name).some((child) => !child.disabled && child.type.split('.').pop() === typeName)) return;
	ctx.addExecutionHints({ message: connectCollectorMessage(kind), type: 'warning', location: 'outputPane' });
}

/** Resolves on a later turn of the event loop (after the I/O callbacks waiting now; for a job's work: after the node has returned its items to n8n). */
const afterThisTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

type PreparedItem<Prepared> = { itemIndex: number; value: Prepared } | { itemIndex: number; error: Error };

/**
 * The item loop gives the event loop a turn after this much work: n8n resolves each item's parameters
 * synchronously (2–3 ms an item here), so thirty items prepared in one turn stalled n8n's whole process for 60–90 ms.
 */
export const PREPARE_TURN_MS = 10;

/**
 * Validate every item before submitting any (the twin's and the serial node's): a bad item 7 must not leave items
 * 1-6 running (and paid for) behind an error. With continue-on-fail a bad item is kept as its node error. The loop
 * yields a turn of the event loop every PREPARE_TURN_MS of work.
 */
export async function prepareItems<Prepared>(ctx: IExecuteFunctions, source: Pick<ConcurrentSource<Prepared, unknown>, 'prepare' | 'errorHints'>): Promise<Array<PreparedItem<Prepared>>> {
	const prepared: Array<PreparedItem<Prepared>> = [];
	let turnStarted = performance.now();
	for (let itemIndex = 0, count = ctx.getInputData().length; itemIndex < count; itemIndex++) {
		if (performance.now() - turnStarted >= PREPARE_TURN_MS) {
			await afterThisTurn();
			turnStarted = performance.now();
		}
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

/**
 * Hand every prepared item to the pool at once, in item order: all the batch's places at the capacity
 * gate are asked for before anything is awaited, so the batch queues as a whole (FIFO) and the items of
 * an execution that arrives later never get between them. Resolves with each item's task json (or error).
 * Only a cancelled execution ends a wait at the gate: the first such item's error is thrown, after the
 * ids of every job that was admitted are in `jobIds` (the execution's cancel reaches them).
 */
async function submitBatch<Prepared, Result>(
	ctx: IExecuteFunctions,
	source: ConcurrentSource<Prepared, Result>,
	prepared: Array<PreparedItem<Prepared>>,
	jobIds: string[],
): Promise<INodeExecutionData[]> {
	const pool = poolFor(source.outputKind);
	const node = ctx.getNode().name;
	const options = { owner: ctx.getExecutionId(), signal: ctx.getExecutionCancelSignal(), sizeOf: source.sizeOf };
	// A job is admitted (the pool knows it, a collector finds it) before its task item is returned; its work starts
	// on a later turn, so that none of it (store lookups, the submit request) runs before execute() returns.
	const run = async (value: Prepared, job: JobContext) => {
		await afterThisTurn();
		return await source.run(value, job);
	};
	const admissions = prepared.map((entry) =>
		'error' in entry ? undefined : pool.submit((job) => run(entry.value, job), { ...options, meta: { node, itemIndex: entry.itemIndex } }),
	);
	const settled = await Promise.allSettled(admissions.map(async (admission) => await admission));
	for (const outcome of settled) if (outcome.status === 'fulfilled' && outcome.value !== undefined) jobIds.push(outcome.value);
	const submittedAt = new Date();
	return prepared.map((entry, index) => {
		const outcome = settled[index];
		// Only a cancelled execution ends the wait at the capacity gate.
		if (outcome.status === 'rejected') throw toNodeError(ctx.getNode(), outcome.reason, entry.itemIndex, source.errorHints);
		const json =
			'error' in entry
				? failedItemJson(ctx, source, entry.error)
				: makeTaskItemJson({ jobId: outcome.value!, kind: source.outputKind, model: source.model, node, submittedAt });
		return { json, pairedItem: { item: entry.itemIndex } };
	});
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
	const description = makeConcurrentTwinDescription(source.description, identity);

	return class ConcurrentTwin implements INodeType {
		description = description;

		methods = source.methods;

		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const pool = poolFor(source.outputKind);
			const release = watchExecutionCancel(this.getExecutionCancelSignal(), this.getExecutionId(), pool);
			const jobIds: string[] = [];
			try {
				const prepared = await prepareItems(this, source);
				const tasks = await submitBatch(this, source, prepared, jobIds);
				hintWhenNoCollector(this, source.outputKind);
				return [tasks];
			} finally {
				// The watch on the execution's signal is needed until this run's jobs are final.
				releaseWhenFinal(pool, jobIds, release);
			}
		}
	};
}
