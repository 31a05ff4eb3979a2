/**
 * The FLUX parts of the image collector: a result's binary (read back from the result store when the pool
 * kept only its reference), tasks the pool does not know (n8n restarted) resolved through the job journal
 * (unknownJob.ts), and the report's note when the store could not be used.
 */
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import type { UnknownTask } from '../collect';
import { getStore } from '../store';
import { redisWarnings } from '../redis';
import { imageSource, type ImageJobResult } from './imageJobResult';
import { deliveredImage, imageJobs } from './imageJobs';
import { resolveUnknownJob } from './unknownJob';

/** The binary of a finished image job (`fileBase` e.g. "slot-03"); from then on the store may let the image go. */
export async function imageResultToBinary(ctx: IExecuteFunctions, result: ImageJobResult, fileBase: string): Promise<IBinaryData> {
	const binary = await ctx.helpers.prepareBinaryData(await imageSource(result), `${fileBase}.${result.fileExtension}`, result.mimeType);
	deliveredImage(result);
	return binary;
}

/** A task this process's pool does not know, resolved through the journal (unknownJob.ts). */
export async function resolveUnknownImageJob(ctx: IExecuteFunctions, task: UnknownTask, signal: AbortSignal): Promise<ImageJobResult | undefined> {
	return await resolveUnknownJob(imageJobs, ctx, task, signal);
}

/** The report's notes: the result store failed now or recently, its journal was damaged or lost; Redis is misconfigured or was not usable (empty when all is well). */
export function storeWarnings(): string[] {
	// Redis: a bad setting, or an outage (jobs ran on per-process limits, the local journal and folder claims).
	return [...getStore().warnings(), ...redisWarnings()];
}
