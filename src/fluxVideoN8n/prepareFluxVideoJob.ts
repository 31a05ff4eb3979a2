import type { IExecuteFunctions } from 'n8n-workflow';

import { formatBytes } from '../flux/body';
import { detectReferenceImageType } from '../flux/imageType';
import { FLUX_VIDEO_ERROR_HINTS } from '../fluxN8n/fluxErrorHints';
import { fluxRun } from '../fluxN8n/fluxParameterReader';
import { fluxNodeLabels, parseFluxVideoParameters, type FluxVideoParameters } from '../fluxN8n/fluxParameters';
import type { StoredJob } from '../fluxN8n/storedJob';
import { preparationError } from '../fluxN8n/invalidInput';
import { sharedReferenceImages } from '../fluxN8n/sharedReferenceImages';
import { MAX_DRAFT_CACHE_BYTES } from '../flux/downloadFile';
import { flux3Video, type FluxVideoRequest, type VideoMedia } from '../models/flux3Video';
import { itemBinaryReader } from '../n8n/inputBinary';
import { InvalidParameterError } from '../parameters/invalidParameter';
import type { MediaSource, ReadBinary } from '../parameters/mediaSources';
import { resolveKeyframes, resolveStartVideo } from './videoMedia';
import { fluxVideoJobIdentity } from '../fluxN8n/fluxJobKey';
import { storedJobOf, videoPriceFields } from '../fluxN8n/spendTerms';

/** One item's video job, validated and ready to run anywhere (no n8n context needed). */
export interface PreparedFluxVideoJob extends StoredJob {
	/** Its base64 media are dropped once the submit is acknowledged. */
	request: FluxVideoRequest;
}

/**
 * A draft cache: a URL stays a URL; a binary property (at most 128 MB, any bytes but an image's) is sent as base64.
 * Errors name `draftCache`.
 */
export async function resolveDraftCache(source: MediaSource, read: ReadBinary): Promise<VideoMedia> {
	if (source.kind === 'url') return { kind: 'url', url: source.url };
	const binary = await read(source.property).catch((err: unknown) => {
		throw new InvalidParameterError('draftCache', `could not read binary property "${source.property}": ${err instanceof Error ? err.message : String(err)}`);
	});
	if (!binary || binary.buffer.length === 0) throw new InvalidParameterError('draftCache', `binary property "${source.property}" not found on the input item, or empty (a draft's item carries its cache in draftCache; or use an http(s) URL)`);
	if (binary.buffer.length > MAX_DRAFT_CACHE_BYTES) {
		throw new InvalidParameterError('draftCache', `binary property "${source.property}" is ${formatBytes(binary.buffer.length)}, more than the ${formatBytes(MAX_DRAFT_CACHE_BYTES)} FLUX accepts for a draft cache`);
	}
	const image = detectReferenceImageType(binary.buffer);
	if (image) {
		const format = image.fileExtension === 'jpg' ? 'JPEG' : image.fileExtension.toUpperCase();
		throw new InvalidParameterError('draftCache', `binary property "${source.property}" is a ${format} image, not a draft cache (a draft's item carries its cache in draftCache)`);
	}
	return sharedReferenceImages().encode(Buffer.from(binary.buffer), binary.mimeType ?? 'application/octet-stream');
}

/** The client's request: the values of the item's mode, its media read from the item. */
async function toRequest(ctx: IExecuteFunctions, itemIndex: number, params: FluxVideoParameters): Promise<FluxVideoRequest> {
	const { keyframes, startVideo, draftCache } = params;
	const read = itemBinaryReader(ctx, itemIndex);
	const values = flux3Video.parameters.filter((p) => !p.wire || typeof p.wire === 'string').map((p) => [p.name, params[p.name]]);
	const request = { ...Object.fromEntries(values.filter(([, v]) => v !== undefined)), mode: params.mode, model: flux3Video } as FluxVideoRequest;
	if (keyframes) request.keyframes = await resolveKeyframes(keyframes as Parameters<typeof resolveKeyframes>[0], read);
	if (startVideo) request.startVideo = await resolveStartVideo(startVideo as MediaSource, read);
	if (draftCache) request.draftCache = await resolveDraftCache(draftCache as MediaSource, read);
	return request;
}

/**
 * Read and validate one item's credential, video parameters and media, once, before anything is sent.
 * Throws NodeOperationError naming field and item.
 */
export async function prepareFluxVideoJob(ctx: IExecuteFunctions, itemIndex: number): Promise<PreparedFluxVideoJob> {
	const run = fluxRun(ctx, 'video');
	try {
		const rawCredentials = await run.credentials.for(itemIndex);
		const credentials = run.parseCredentials(rawCredentials);
		const params = parseFluxVideoParameters(run.parameters.read(itemIndex));
		const request = await toRequest(ctx, itemIndex, params);
		const job = storedJobOf(ctx, { rawCredentials, credentials, model: flux3Video, priceFields: videoPriceFields(request), params }, () => fluxVideoJobIdentity(ctx, credentials, request, params.seed));
		return { ...job, request };
	} catch (error) {
		throw preparationError(ctx.getNode(), error, itemIndex, fluxNodeLabels('video'), FLUX_VIDEO_ERROR_HINTS);
	}
}
