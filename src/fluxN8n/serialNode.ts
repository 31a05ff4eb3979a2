/**
 * The serial FLUX nodes (image and video): every input item is prepared, run through the result store and
 * becomes one output item with its result as binary `data` (a draft's cache as `draftCache`), paired to its input; a failed item throws, or with
 * continue-on-fail becomes `{ error }`. What differs by node is its SerialJobs.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { SlotFiles } from '../collect';
import type { ErrorHints } from '../n8n/nodeErrors';
import { toNodeError } from '../n8n/nodeErrors';
import type { JobContext } from '../pool';
import { deliveredCost, withItemNamed } from './spendTerms';
import type { JobResult } from './jobResult';

/** One serial node's jobs: how an item is prepared and run, and how a result becomes n8n binary data. */
export interface SerialJobs<J> {
	/** The pool-free job id's prefix (`serial`, `serial-video`). */
	jobIdPrefix: string;
	prepare(ctx: IExecuteFunctions, itemIndex: number): Promise<J>;
	run(job: J, context: JobContext): Promise<JobResult>;
	/** The result as n8n binary data, with the files that go with it (undefined: none, e.g. a skipped clip); delivered to n8n from then on. */
	binary(ctx: IExecuteFunctions, result: JobResult, itemIndex: number): Promise<SlotFiles | undefined>;
	/** More of the item's JSON (the image node's AI Agent tool description). */
	moreJson?(ctx: IExecuteFunctions, job: J, binary: IBinaryData | undefined, result: JobResult): IDataObject;
	errorHints: ErrorHints;
}

function resultJson(result: JobResult, attempts: number, startedAt: number, finishedAt: number): IDataObject {
	return {
		status: result.outcome,
		cached: result.cached ?? false,
		cost: deliveredCost(result),
		...(result.taskId ? { taskId: result.taskId } : {}),
		...(result.error ? { error: result.error, errorKind: result.errorKind } : {}),
		...(result.draft ? { draft: true } : {}),
		attempts,
		timings: { startedAt: new Date(startedAt).toISOString(), finishedAt: new Date(finishedAt).toISOString(), runMs: finishedAt - startedAt },
	};
}

async function runItem<J>(ctx: IExecuteFunctions, jobs: SerialJobs<J>, itemIndex: number, signal: AbortSignal): Promise<INodeExecutionData> {
	const job = await jobs.prepare(ctx, itemIndex);
	let attempts = 0;
	const context: JobContext = { jobId: `${jobs.jobIdPrefix}-${ctx.getExecutionId()}-${itemIndex}`, signal, setAttempts: (n) => (attempts = n) };
	const startedAt = Date.now();
	const result = await jobs.run(job, context);
	const json = resultJson(result, attempts, startedAt, Date.now());
	const files = await jobs.binary(ctx, result, itemIndex);
	const binary = files && { ...files.with, data: files.result };
	return { json: { ...json, ...jobs.moreJson?.(ctx, job, files?.result, result) }, ...(binary ? { binary } : {}), pairedItem: { item: itemIndex } };
}

/** The serial node's execute: each item in turn (see the file's opening comment). */
export async function executeSerial<J>(ctx: IExecuteFunctions, jobs: SerialJobs<J>): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const signal = ctx.getExecutionCancelSignal() ?? new AbortController().signal;
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			output.push(await runItem(ctx, jobs, itemIndex, signal));
		} catch (error) {
			const nodeError = toNodeError(ctx.getNode(), withItemNamed(error, itemIndex), itemIndex, jobs.errorHints);
			if (!ctx.continueOnFail()) throw nodeError;
			output.push({ json: { error: nodeError.message }, pairedItem: { item: itemIndex } });
		}
	}
	return [output];
}
