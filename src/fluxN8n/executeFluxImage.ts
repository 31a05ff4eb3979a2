import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { JobContext } from '../pool';
import { toNodeError } from '../n8n/nodeErrors';
import { isToolCall } from '../n8n/toolCall';
import { FLUX_ERROR_HINTS } from './fluxErrorHints';
import { imageSource } from './imageJobResult';
import { prepareFluxImageJob, runFluxImageJob, type PreparedFluxImageJob } from './fluxImageSource';
import { deliveredImage } from './imageJobs';
import { deliveredCost, withItemNamed } from './spendTerms';

/**
 * What an AI Agent gets from the node used as a tool. n8n hands the agent only the items' JSON (it
 * drops binaries, logging a warning), so the JSON says what was made: the prompt, the file's name,
 * type and size in bytes, and the binary property that holds it (the image stays on the item, in the
 * tool node's run data, for the nodes after the agent).
 */
function toolResultJson(job: PreparedFluxImageJob, binary: IBinaryData, bytes: number): IDataObject {
	return {
		prompt: job.request.prompt,
		fileName: binary.fileName ?? null,
		mimeType: binary.mimeType,
		fileSize: bytes,
		binaryProperty: 'data',
	};
}

/**
 * The serial FLUX 3 Image node: every input item is generated in turn and
 * becomes one item with the image as binary `data`. As an AI Agent tool, its JSON also describes the
 * image (toolResultJson).
 */
export async function executeFluxImage(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const asTool = isToolCall(ctx);
	const items = ctx.getInputData();
	const signal = ctx.getExecutionCancelSignal() ?? new AbortController().signal;
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const pairedItem = { item: itemIndex };
		try {
			const job = await prepareFluxImageJob(ctx, itemIndex);
			let attempts = 0;
			const context: JobContext = { jobId: `serial-${ctx.getExecutionId()}-${itemIndex}`, signal, setAttempts: (n) => (attempts = n) };
			const startedAt = Date.now();
			const result = await runFluxImageJob(job, context);
			const finishedAt = Date.now();
			const binary = await ctx.helpers.prepareBinaryData(
				await imageSource(result),
				`flux-${result.taskId ?? itemIndex}.${result.fileExtension}`,
				result.mimeType,
			);
			deliveredImage(result);
			const json: IDataObject = {
				status: result.outcome,
				cached: result.cached,
				cost: deliveredCost(result),
				...(result.taskId ? { taskId: result.taskId } : {}),
				...(result.error ? { error: result.error, errorKind: result.errorKind } : {}),
				attempts,
				timings: {
					startedAt: new Date(startedAt).toISOString(),
					finishedAt: new Date(finishedAt).toISOString(),
					runMs: finishedAt - startedAt,
				},
				...(asTool ? toolResultJson(job, binary, result.byteLength ?? result.buffer?.length ?? 0) : {}),
			};
			output.push({ json, binary: { data: binary }, pairedItem });
		} catch (error) {
			const nodeError = toNodeError(ctx.getNode(), withItemNamed(error, itemIndex), itemIndex, FLUX_ERROR_HINTS);
			if (!ctx.continueOnFail()) throw nodeError;
			output.push({ json: { error: nodeError.message }, pairedItem });
		}
	}
	return [output];
}
