import { FluxError, generateImage, redact } from '../flux';
import { skippedErrorPng } from '../images/solidPng';
import type { JobContext } from '../pool';
import type { ImageJobResult } from './imageJobResult';
import type { PreparedFluxImageJob } from './prepareFluxImageJob';

/** The job lets go of its reference images (shared encoded copies): the upstream task has them now. */
function releaseReferenceImages(job: PreparedFluxImageJob): void {
	job.request.images = [];
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
			onSubmitted: () => releaseReferenceImages(job),
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
	} finally {
		releaseReferenceImages(job);
	}
}
