import type { IExecuteFunctions } from 'n8n-workflow';

import type { FluxVideoRequest } from '../flux';
import { FLUX_VIDEO_ERROR_HINTS } from './videoErrorHints';
import { parseFluxCredentials } from '../fluxN8n/fluxCredentials';
import type { StoredJob } from '../fluxN8n/storedJob';
import { preparationError } from '../fluxN8n/invalidInput';
import { FLUX_VIDEO_PARAMETER_LABELS } from '../fluxN8n/parameterLabels';
import { itemBinaryReader } from '../n8n/inputBinary';
import { resolveKeyframes, resolveStartVideo } from './videoMedia';
import { fluxVideoJobIdentity } from '../fluxN8n/fluxJobKey';
import { parseFluxVideoParameters } from './videoParameters';
import { VIDEO_MODEL } from '../flux/videoOptions';
import { jobSpendTerms, videoPriceFields } from '../fluxN8n/spendTerms';

/** One item's video job, validated and ready to run anywhere (no n8n context needed). */
export interface PreparedFluxVideoJob extends StoredJob {
	/** Its base64 media are dropped once the submit is acknowledged. */
	request: FluxVideoRequest;
}

/** The item's parameters as n8n hands them over; a field hidden in this mode is read too (BFL would refuse it). */
function readRawParameters(ctx: IExecuteFunctions, itemIndex: number): Record<string, unknown> {
	const read = (name: string, fallback?: unknown) => ctx.getNodeParameter(name, itemIndex, fallback);
	return {
		mode: read('mode', 't2v'),
		prompt: read('prompt'),
		aspectRatio: read('aspectRatio', 'auto'),
		resolution: read('resolution', 'hd'),
		duration: read('duration', 'auto'),
		generateAudio: read('generateAudio', true),
		keyframes: read('keyframes', {}),
		startVideo: read('startVideo', ''),
		skipError: read('skipError', false),
		seed: read('seed', 0),
		options: read('options', {}),
	};
}

/** The client's request: only the fields of the item's mode. */
async function toRequest(ctx: IExecuteFunctions, itemIndex: number, raw: Record<string, unknown>): Promise<{ request: FluxVideoRequest; params: ReturnType<typeof parseFluxVideoParameters> }> {
	const params = parseFluxVideoParameters(raw);
	const read = itemBinaryReader(ctx, itemIndex);
	const request: FluxVideoRequest = {
		mode: params.mode,
		prompt: params.prompt,
		aspectRatio: params.aspectRatio,
		resolution: params.resolution,
		duration: params.duration,
		generateAudio: params.generateAudio,
	};
	if (params.keyframes) request.keyframes = await resolveKeyframes(params.keyframes, read);
	if (params.startVideo) request.startVideo = await resolveStartVideo(params.startVideo, read);
	return { request, params };
}

/**
 * Read and validate one item's credential, video parameters and media, once, before anything is sent.
 * Throws NodeOperationError naming field and item.
 */
export async function prepareFluxVideoJob(ctx: IExecuteFunctions, itemIndex: number): Promise<PreparedFluxVideoJob> {
	try {
		const rawCredentials = await ctx.getCredentials('fluxApi', itemIndex);
		const credentials = parseFluxCredentials(rawCredentials);
		const { request, params } = await toRequest(ctx, itemIndex, readRawParameters(ctx, itemIndex));
		return {
			credentials,
			spend: jobSpendTerms(ctx, { rawCredentials, credentials, model: VIDEO_MODEL, priceFields: videoPriceFields(request), maxNewJobsPerExecution: params.maxNewJobsPerExecution, timeoutMs: params.timeoutMs }),
			request,
			skipError: params.skipError,
			timeoutMs: params.timeoutMs,
			maxDownloadBytes: params.maxDownloadBytes,
			cacheMode: params.cacheMode,
			identity: fluxVideoJobIdentity(ctx, credentials, request, params.seed),
		};
	} catch (error) {
		throw preparationError(ctx.getNode(), error, itemIndex, FLUX_VIDEO_PARAMETER_LABELS, FLUX_VIDEO_ERROR_HINTS);
	}
}
