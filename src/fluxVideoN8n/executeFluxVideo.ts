import { rm } from 'node:fs/promises';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { FLUX_VIDEO_ERROR_HINTS } from './videoErrorHints';
import { toNodeError } from '../n8n/nodeErrors';
import type { JobContext } from '../pool';
import { prepareFluxVideoJob } from './prepareFluxVideoJob';
import { runFluxVideoJob } from './videoJobs';
import { deliveredVideo } from './videoJobs';
import { openVideo, VIDEO_MIME_TYPE, type VideoJobResult } from './videoJobResult';
import { deliveredCost, withItemNamed } from '../fluxN8n/spendTerms';

/** The clip as n8n binary, streamed from the store or the download file (a file the store did not keep is removed). */
async function videoBinary(ctx: IExecuteFunctions, result: VideoJobResult, fileName: string) {
	try {
		return await ctx.helpers.prepareBinaryData(await openVideo(result), fileName, VIDEO_MIME_TYPE);
	} finally {
		deliveredVideo(result);
		if (result.filePath !== undefined) await rm(result.filePath, { force: true });
	}
}

function resultJson(result: VideoJobResult, attempts: number, startedAt: number, finishedAt: number): IDataObject {
	return {
		status: result.outcome,
		cached: result.cached ?? false,
		cost: deliveredCost(result),
		...(result.taskId ? { taskId: result.taskId } : {}),
		...(result.error ? { error: result.error, errorKind: result.errorKind } : {}),
		attempts,
		timings: { startedAt: new Date(startedAt).toISOString(), finishedAt: new Date(finishedAt).toISOString(), runMs: finishedAt - startedAt },
	};
}

/**
 * The serial FLUX 3 Video node: every input item is generated in turn and becomes one item with the clip as
 * binary `data` (video/mp4). A skipped (Skip Error) item has status skipped_error and no binary.
 */
export async function executeFluxVideo(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const signal = ctx.getExecutionCancelSignal() ?? new AbortController().signal;
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const pairedItem = { item: itemIndex };
		try {
			const job = await prepareFluxVideoJob(ctx, itemIndex);
			let attempts = 0;
			const context: JobContext = { jobId: `serial-video-${ctx.getExecutionId()}-${itemIndex}`, signal, setAttempts: (n) => (attempts = n) };
			const startedAt = Date.now();
			const result = await runFluxVideoJob(job, context);
			const json = resultJson(result, attempts, startedAt, Date.now());
			if (result.outcome !== 'success') {
				output.push({ json, pairedItem });
				continue;
			}
			const binary = await videoBinary(ctx, result, `flux-${result.taskId ?? itemIndex}.mp4`);
			output.push({ json, binary: { data: binary }, pairedItem });
		} catch (error) {
			const nodeError = toNodeError(ctx.getNode(), withItemNamed(error, itemIndex), itemIndex, FLUX_VIDEO_ERROR_HINTS);
			if (!ctx.continueOnFail()) throw nodeError;
			output.push({ json: { error: nodeError.message }, pairedItem });
		}
	}
	return [output];
}
