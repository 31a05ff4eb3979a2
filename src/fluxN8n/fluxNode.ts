/**
 * One FLUX node of any output kind, given its FluxNodeKind (images: imageJobs.ts, clips: videoJobs.ts): the serial
 * node's execute, the source its concurrent twin is made of, and the collector's FLUX parts.
 */
import type { IBinaryData, ICredentialDataDecryptedObject, ICredentialsDecrypted, ICredentialTestFunctions, IDataObject, IExecuteFunctions, INodeCredentialTestResult, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import type { CollectorSpec, SlotFiles, UnknownTask } from '../collect';
import { checkFluxCredentials, redact } from '../flux';
import { toNodeError, type ErrorHints } from '../n8n/nodeErrors';
import type { JobContext } from '../pool';
import { redisWarnings } from '../redis';
import { getStore } from '../store';
import type { ConcurrentSource } from '../twin/concurrentSource';
import { prepareItems } from '../twin/makeConcurrentTwin';
import { parseFluxCredentials } from './fluxCredentials';
import { FluxCredentialsError } from './invalidInput';
import { DRAFT_CACHE, DRAFT_CACHE_MIME_TYPE, removeDeliveredFile, resultSource, type JobResult, type ResultFile } from './jobResult';
import { collectorSpendReport, deliveredCost, withItemNamed } from './spendTerms';
import { delivered, runPooledStoredJob, runStoredJob, type JobKind, type StoredJob } from './storedJob';
import { resolveUnknownJob } from './unknownJob';

/** A prepared job of a FLUX node: what the store needs, and the request (its prompt describes the result to an AI Agent). */
export type FluxNodeJob = StoredJob & { request: { prompt?: string } };

/** What makes one FLUX node (and its twin and collector) what it is. */
export interface FluxNodeKind<J extends FluxNodeJob> {
	/** How its jobs are fetched and kept (storedJob.ts). */
	jobs: JobKind<J>;
	/** Read and validate one item; throws NodeOperationError naming field and item. */
	prepare(ctx: IExecuteFunctions, itemIndex: number): Promise<J>;
	/** The model name written into task items. */
	model: string;
	/** Bytes a result weighs against the pool's retained-results bound. */
	sizeOf(result: JobResult): number;
	errorHints: ErrorHints;
}

/**
 * The FLUX API credential's "Test" button: `…/credits` where served, else a poll for a task that cannot
 * exist (src/flux/credentialCheck.ts). Never submits a job; the message is redacted.
 */
export async function fluxApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted<ICredentialDataDecryptedObject>,
): Promise<INodeCredentialTestResult> {
	try {
		const credentials = parseFluxCredentials(credential.data);
		const result = await checkFluxCredentials(credentials);
		return { status: result.ok ? 'OK' : 'Error', message: result.message };
	} catch (error) {
		if (error instanceof FluxCredentialsError) return { status: 'Error', message: error.message };
		return { status: 'Error', message: redact(error instanceof Error ? error.message : String(error)) };
	}
}

/** The FLUX nodes' methods: the credential test (the twins share it). */
export const fluxMethods: INodeType['methods'] = { credentialTest: { fluxApiTest } };

/**
 * The result as n8n binary `<fileBase>.<extension>`, with a draft's cache (`<fileBase>-draft-cache.bin`), delivered
 * from then on; none for a skipped job without a placeholder (a clip).
 */
async function toBinary(ctx: IExecuteFunctions, result: JobResult, fileBase: string): Promise<SlotFiles | undefined> {
	if (result.outcome !== 'success' && result.buffer === undefined) return undefined;
	const binary = async (file: ResultFile, name: string, mimeType: string) => await ctx.helpers.prepareBinaryData(await resultSource(result, file), name, mimeType);
	try {
		const clip = await binary(result, `${fileBase}.${result.fileExtension}`, result.mimeType);
		if (!result.draftCache) return { result: clip };
		return { result: clip, with: { [DRAFT_CACHE]: await binary(result.draftCache, `${fileBase}-draft-cache.bin`, DRAFT_CACHE_MIME_TYPE) } };
	} finally {
		delivered(result);
	}
}

/**
 * True when n8n runs the node as an AI Agent tool. n8n serves a node with `usableAsTool` as the extra
 * type `<type>Tool` (outputs `ai_tool`); the agent calls it either through n8n-core's tool wrapper
 * (a SupplyDataContext: `isToolExecution()` is true, n8n >= 2.x with that method) or, with engine
 * requests, as a regular node run of that `…Tool` type (`isToolExecution()` is false there). The type
 * name covers both, and n8n 2.0 (no `isToolExecution`).
 */
function isToolCall(ctx: Pick<IExecuteFunctions, 'getNode'>): boolean {
	const asTool = (ctx as { isToolExecution?: () => boolean }).isToolExecution?.();
	return asTool === true || ctx.getNode().type.endsWith('Tool');
}

/**
 * What an AI Agent gets from the node used as a tool. n8n hands the agent only the items' JSON (it drops binaries,
 * logging a warning), so the JSON says what was made: the prompt, the file's name, type and size in bytes, and the
 * binary property that holds it (the file stays on the item, in the tool node's run data, for the nodes after the agent).
 */
function toolResultJson(job: FluxNodeJob, binary: IBinaryData | undefined, result: JobResult): IDataObject {
	if (!binary) return {};
	const fileSize = result.byteLength ?? result.buffer?.length ?? 0;
	return { prompt: job.request.prompt ?? null, fileName: binary.fileName ?? null, mimeType: binary.mimeType, fileSize, binaryProperty: 'data' };
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

/** One item of the serial node, run through the result store (its pool-free job id: `serial[-video]-<execution>-<item>`). */
async function runItem<J extends FluxNodeJob>(ctx: IExecuteFunctions, node: FluxNodeKind<J>, job: J, itemIndex: number, signal: AbortSignal, asTool: boolean): Promise<INodeExecutionData> {
	let attempts = 0;
	const prefix = node.jobs.kind === 'image' ? 'serial' : 'serial-video';
	const context: JobContext = { jobId: `${prefix}-${ctx.getExecutionId()}-${itemIndex}`, signal, setAttempts: (n) => (attempts = n) };
	const startedAt = Date.now();
	const result = await runStoredJob(node.jobs, job, context);
	const json = resultJson(result, attempts, startedAt, Date.now());
	let files: SlotFiles | undefined;
	try {
		files = await toBinary(ctx, result, `flux-${result.taskId ?? itemIndex}`);
	} finally {
		await removeDeliveredFile(result);
	}
	const binary = files && { ...files.with, data: files.result };
	return { json: { ...json, ...(asTool ? toolResultJson(job, files?.result, result) : {}) }, ...(binary ? { binary } : {}), pairedItem: { item: itemIndex } };
}

/**
 * The serial node: every input item is prepared first (an invalid item stops the node before anything is paid),
 * then each is run through the result store, in order, and becomes one output item with its result as binary
 * `data` (type and extension follow its bytes; a draft's cache as `draftCache`), paired to its input; a file the
 * store did not keep is removed once n8n has it (removeDeliveredFile). A failed item throws, or with
 * continue-on-fail becomes `{ error }`.
 */
export async function executeFluxNode<J extends FluxNodeJob>(ctx: IExecuteFunctions, node: FluxNodeKind<J>): Promise<INodeExecutionData[][]> {
	const asTool = isToolCall(ctx);
	const signal = ctx.getExecutionCancelSignal() ?? new AbortController().signal;
	const failed = (error: unknown, itemIndex: number): INodeExecutionData => {
		const nodeError = toNodeError(ctx.getNode(), withItemNamed(error, itemIndex), itemIndex, node.errorHints);
		if (!ctx.continueOnFail()) throw nodeError;
		return { json: { error: nodeError.message }, pairedItem: { item: itemIndex } };
	};
	const output: INodeExecutionData[] = [];
	for (const item of await prepareItems(ctx, node)) {
		if ('error' in item) output.push(failed(item.error, item.itemIndex));
		else output.push(await runItem(ctx, node, item.value, item.itemIndex, signal, asTool).catch((error: unknown) => failed(error, item.itemIndex)));
	}
	return [output];
}

/** The node as a source for its concurrent twin, given the node's description: its output kind picks the pool. */
export function makeFluxSource<J extends FluxNodeJob>(description: INodeTypeDescription, node: FluxNodeKind<J>): ConcurrentSource<J, JobResult> {
	return {
		description,
		outputKind: node.jobs.kind,
		model: node.model,
		prepare: node.prepare,
		run: (job, context) => runPooledStoredJob(node.jobs, job, context),
		sizeOf: node.sizeOf,
		errorHints: node.errorHints,
		methods: fluxMethods,
	};
}

/** The report's notes: the result store failed now or recently, its journal was damaged or lost; Redis is misconfigured or was not usable (empty when all is well). */
export function storeWarnings(): string[] {
	return [...getStore().warnings(), ...redisWarnings()];
}

/**
 * The collector's FLUX parts: a slot's binary (`fileBase` e.g. "slot-03"), tasks its pool does not know (n8n
 * restarted) resolved through the job journal (unknownJob.ts), the report's store notes and spend.
 */
export function fluxCollectorParts<J extends FluxNodeJob>(node: FluxNodeKind<J>): Pick<CollectorSpec<JobResult>, 'toBinary' | 'resolveUnknownJob' | 'reportWarnings' | 'reportExtras'> {
	return {
		toBinary: async (ctx, result, fileBase) => await toBinary(ctx, result, fileBase),
		resolveUnknownJob: async (ctx: IExecuteFunctions, task: UnknownTask, signal: AbortSignal) => await resolveUnknownJob(node.jobs, ctx, task, signal),
		reportWarnings: storeWarnings,
		reportExtras: collectorSpendReport,
	};
}
