import { NodeOperationError, type IExecuteFunctions, type INodeType, type INodeTypeDescription } from 'n8n-workflow';

import {
	FluxError,
	FluxParameterError,
	generateImage,
	parseFluxParameters,
	redact,
	resolveReferenceImages,
	toFluxImageRequest,
	type FluxCredentials,
	type FluxImageRequest,
} from '../flux';
import { IMAGE_MODEL } from '../flux/options';
import { skippedErrorPng } from '../images/solidPng';
import type { JobContext } from '../pool';
import type { ConcurrentSource } from '../twin/concurrentSource';
import { FluxCredentialsError, parseFluxCredentials } from './fluxCredentials';
import { fluxApiTest } from './fluxApiTest';
import { imageJobResultSize, type ImageJobResult } from './imageJobResult';
import { toNodeError } from '../n8n/nodeErrors';
import { FLUX_ERROR_HINTS } from './fluxErrorHints';

/** One item's job, validated and ready to run anywhere (no n8n context needed). */
export interface PreparedFluxImageJob {
	credentials: FluxCredentials;
	request: FluxImageRequest;
	skipError: boolean;
	seed?: number;
	timeoutMs: number;
	maxDownloadBytes: number;
}

interface FluxImageOptions {
	timeoutMinutes?: number;
	maxDownloadMb?: number;
}


/** Read and validate one item's FLUX parameters, credential and reference images. */
export async function prepareFluxImageJob(ctx: IExecuteFunctions, itemIndex: number): Promise<PreparedFluxImageJob> {
	const read = (name: string, fallback?: unknown) => ctx.getNodeParameter(name, itemIndex, fallback);
	try {
		const credentials = parseFluxCredentials(await ctx.getCredentials('fluxApi', itemIndex));
		const options = read('options', {}) as FluxImageOptions;
		const params = parseFluxParameters({
			prompt: read('prompt'),
			resolution: read('resolution', '1k'),
			aspectRatio: read('aspectRatio', 'auto'),
			grounding: read('grounding', true),
			safetyTolerance: read('safetyTolerance', 2),
			seed: read('seed', 0),
			referenceImages: read('referenceImages.images', []),
		});
		const images = await resolveReferenceImages(params.referenceImages, async (property) => {
			const binary = ctx.getInputData()[itemIndex]?.binary?.[property];
			if (!binary) return undefined;
			return {
				buffer: await ctx.helpers.getBinaryDataBuffer(itemIndex, property),
				mimeType: binary.mimeType,
			};
		});
		return {
			credentials,
			request: toFluxImageRequest(params, images),
			skipError: Boolean(read('skipError', false)),
			seed: params.seed,
			timeoutMs: Math.round((options.timeoutMinutes ?? 10) * 60_000),
			maxDownloadBytes: Math.round((options.maxDownloadMb ?? 50) * 1024 * 1024),
		};
	} catch (error) {
		if (error instanceof FluxParameterError || error instanceof FluxCredentialsError) {
			throw new NodeOperationError(ctx.getNode(), `${error.message} (item ${itemIndex})`, { itemIndex });
		}
		throw toNodeError(ctx.getNode(), error, itemIndex, FLUX_ERROR_HINTS);
	}
}

/** Run one FLUX image job. With Skip Error, a failure becomes the white placeholder and `skipped_error`. */
export async function runFluxImageJob(job: PreparedFluxImageJob, context: JobContext): Promise<ImageJobResult> {
	try {
		const result = await generateImage(job.credentials, job.request, {
			signal: context.signal,
			timeoutMs: job.timeoutMs,
			maxDownloadBytes: job.maxDownloadBytes,
			// A job's attempts are its submits: 1 means sent once (retries only when provably not created).
			onAttempt: (attempts) => context.setAttempts(attempts.submit),
		});
		return {
			outcome: 'success',
			buffer: result.buffer,
			mimeType: result.mimeType,
			fileExtension: result.fileExtension,
			taskId: result.taskId,
		};
	} catch (error) {
		const cancelled = context.signal.aborted || (error instanceof FluxError && error.kind === 'cancelled');
		// Runs in the pool, outside any node: the collector or serial node turns this into a node error.
		// eslint-disable-next-line @n8n/community-nodes/require-node-api-error
		if (!job.skipError || cancelled) throw error;
		return {
			outcome: 'skipped_error',
			buffer: skippedErrorPng(),
			mimeType: 'image/png',
			fileExtension: 'png',
			taskId: error instanceof FluxError ? error.taskId : undefined,
			error: error instanceof FluxError ? error.message : redact((error as Error).message ?? String(error), [job.credentials.apiKey]),
			errorKind: error instanceof FluxError ? error.kind : undefined,
		};
	}
}

/** The FLUX nodes' methods: the credential test. */
export const fluxImageMethods: INodeType['methods'] = { credentialTest: { fluxApiTest } };

/** The FLUX 3 Image node as a source for its concurrent twin (image pool), given the node's description. */
export function makeFluxImageSource(
	description: INodeTypeDescription,
): ConcurrentSource<PreparedFluxImageJob, ImageJobResult> {
	return {
		description,
		outputKind: 'image',
		model: IMAGE_MODEL,
		prepare: prepareFluxImageJob,
		run: runFluxImageJob,
		sizeOf: imageJobResultSize,
		errorHints: FLUX_ERROR_HINTS,
		methods: fluxImageMethods,
	};
}
