/**
 * The FLUX parts of the video collector: a result's binary (streamed from the result store or its file), tasks
 * the pool does not know (n8n restarted) resolved through the job journal, as for images.
 */
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import type { UnknownTask } from '../collect';
import { resolveUnknownJob } from '../fluxN8n/unknownJob';
import { deliveredVideo, videoJobs } from './videoJobs';
import { openVideo, VIDEO_MIME_TYPE, type VideoJobResult } from './videoJobResult';

/** The binary of a finished video job (`fileBase` e.g. "slot-03" → slot-03.mp4); none for a skipped job (no placeholder clip). */
export async function videoResultToBinary(ctx: IExecuteFunctions, result: VideoJobResult, fileBase: string): Promise<IBinaryData | undefined> {
	if (result.outcome !== 'success') return undefined;
	const binary = await ctx.helpers.prepareBinaryData(await openVideo(result), `${fileBase}.mp4`, VIDEO_MIME_TYPE);
	deliveredVideo(result);
	return binary;
}

/** A task this process's pool does not know, resolved through the journal (unknownJob.ts, as for images). */
export async function resolveUnknownVideoJob(ctx: IExecuteFunctions, task: UnknownTask, signal: AbortSignal): Promise<VideoJobResult | undefined> {
	return await resolveUnknownJob(videoJobs, ctx, task, signal);
}
