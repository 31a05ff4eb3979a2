import { rm } from 'node:fs/promises';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { executeSerial } from '../fluxN8n/serialNode';
import { FLUX_VIDEO_ERROR_HINTS } from './videoErrorHints';
import { prepareFluxVideoJob } from './prepareFluxVideoJob';
import { deliveredVideo, runFluxVideoJob } from './videoJobs';
import { openVideo, VIDEO_MIME_TYPE, type VideoJobResult } from './videoJobResult';

/** The clip as n8n binary, streamed from the store or the download file (a file the store did not keep is removed). */
async function videoBinary(ctx: IExecuteFunctions, result: VideoJobResult, fileName: string) {
	try {
		return await ctx.helpers.prepareBinaryData(await openVideo(result), fileName, VIDEO_MIME_TYPE);
	} finally {
		deliveredVideo(result);
		if (result.filePath !== undefined) await rm(result.filePath, { force: true });
	}
}

/**
 * The serial FLUX 3 Video node (serialNode.ts): every input item is generated in turn and becomes one item with
 * the clip as binary `data` (video/mp4). A skipped (Skip Error) item has status skipped_error and no binary.
 */
export async function executeFluxVideo(ctx: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await executeSerial(ctx, {
		jobIdPrefix: 'serial-video',
		prepare: prepareFluxVideoJob,
		run: runFluxVideoJob,
		binary: async (node, result, itemIndex) => (result.outcome === 'success' ? await videoBinary(node, result, `flux-${result.taskId ?? itemIndex}.mp4`) : undefined),
		errorHints: FLUX_VIDEO_ERROR_HINTS,
	});
}
