import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

import type { FluxCredentials, FluxImageRequest } from '../flux';
import { readInputBinary } from '../n8n/inputBinary';
import { toNodeError } from '../n8n/nodeErrors';
import { FLUX_ERROR_HINTS } from './fluxErrorHints';
import { parseFluxCredentials } from './fluxCredentials';
import { parseFluxParameters, toFluxImageRequest } from './fluxParameters';
import type { CacheMode } from '../store';
import { fluxJobIdentity, type FluxJobIdentity } from './fluxJobKey';
import { FluxCredentialsError, InvalidParameterError } from './invalidInput';
import { resolveReferenceImages, type GetBinary } from './referenceImages';

/** One item's job, validated and ready to run anywhere (no n8n context needed). */
export interface PreparedFluxImageJob {
	credentials: FluxCredentials;
	/** Its binary reference images are shared copies; `images` is emptied once the submit is acknowledged. */
	request: FluxImageRequest;
	skipError: boolean;
	seed?: number;
	timeoutMs: number;
	maxDownloadBytes: number;
	/** Options → Cache. */
	cacheMode: CacheMode;
	/** The result store's key and what the journal records about the job. */
	identity: FluxJobIdentity;
}

/** The item's parameters exactly as n8n hands them over (validated by parseFluxParameters). */
function readRawParameters(ctx: IExecuteFunctions, itemIndex: number): Record<string, unknown> {
	const read = (name: string, fallback?: unknown) => ctx.getNodeParameter(name, itemIndex, fallback);
	return {
		prompt: read('prompt'),
		resolution: read('resolution', '1k'),
		aspectRatio: read('aspectRatio', 'auto'),
		grounding: read('grounding', true),
		safetyTolerance: read('safetyTolerance', 2),
		seed: read('seed', 0),
		referenceImages: read('referenceImages.images', []),
		skipError: read('skipError', false),
		options: read('options', {}),
	};
}

/**
 * A binary property of the item (an own property only, never the prototype's), read through n8n's
 * helpers in either binary mode (separate, or the workflow setting `binaryMode: 'combined'`).
 */
function itemBinary(ctx: IExecuteFunctions, itemIndex: number): GetBinary {
	return async (property) => await readInputBinary(ctx, itemIndex, property);
}

/**
 * Read and validate one item's credential, parameters and reference images,
 * once, before anything is sent. Throws NodeOperationError naming field and item.
 */
export async function prepareFluxImageJob(ctx: IExecuteFunctions, itemIndex: number): Promise<PreparedFluxImageJob> {
	try {
		const credentials = parseFluxCredentials(await ctx.getCredentials('fluxApi', itemIndex));
		const params = parseFluxParameters(readRawParameters(ctx, itemIndex));
		const images = await resolveReferenceImages(params.referenceImages, itemBinary(ctx, itemIndex));
		const request = toFluxImageRequest(params, images);
		return {
			credentials,
			request,
			skipError: params.skipError,
			seed: params.seed,
			timeoutMs: params.timeoutMs,
			maxDownloadBytes: params.maxDownloadBytes,
			cacheMode: params.cacheMode,
			identity: fluxJobIdentity(ctx, credentials, request, params.seed),
		};
	} catch (error) {
		if (error instanceof InvalidParameterError || error instanceof FluxCredentialsError) {
			throw new NodeOperationError(ctx.getNode(), `${error.message} (item ${itemIndex})`, { itemIndex });
		}
		throw toNodeError(ctx.getNode(), error, itemIndex, FLUX_ERROR_HINTS);
	}
}
