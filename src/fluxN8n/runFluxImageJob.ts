import { FluxError, redact } from '../flux';
import { skippedErrorPng } from '../images/solidPng';
import type { JobContext } from '../pool';
import { recentAccounts } from '../spend';
import { getStore } from '../store';
import type { ImageJobResult } from './imageJobResult';
import type { PreparedFluxImageJob } from './prepareFluxImageJob';
import { obtainFluxImage, releaseReferenceImages } from './storedFluxImageJob';

/**
 * Run one FLUX image job through the result store (storedFluxImageJob). With Skip Error, a failure becomes
 * the white placeholder and `skipped_error` (a placeholder is never stored).
 */
export async function runFluxImageJob(job: PreparedFluxImageJob, context: JobContext): Promise<ImageJobResult> {
	recentAccounts().note(context.jobId, job.spend); // the collector's report shows this account's spend
	try {
		return await obtainFluxImage(job, context);
	} catch (error) {
		const cancelled = context.signal.aborted || (error instanceof FluxError && error.kind === 'cancelled');
		// A job a spend limit refused is not a failed generation: Skip Error does not hide it behind a placeholder.
		const refused = error instanceof FluxError && error.kind === 'budget_exceeded';
		// Runs in the pool, outside any node: the collector or serial node turns this into a node error.
		// eslint-disable-next-line @n8n/community-nodes/require-node-api-error
		if (!job.skipError || cancelled || refused) throw error;
		return {
			outcome: 'skipped_error',
			buffer: skippedErrorPng(),
			byteLength: skippedErrorPng().length,
			mimeType: 'image/png',
			fileExtension: 'png',
			cached: false,
			taskId: error instanceof FluxError ? error.taskId : undefined,
			error: error instanceof FluxError ? error.message : redact((error as Error).message ?? String(error), [job.credentials.apiKey]),
			errorKind: error instanceof FluxError ? error.kind : undefined,
			cost: error instanceof FluxError ? (error.cost ?? null) : null,
		};
	} finally {
		releaseReferenceImages(job);
	}
}

/**
 * The twin's run: the same job, its pool job id linked to its key in the journal first (so a collector in a
 * new process finds it, however it is served). The pool keeps no image bytes: a store key or a file (imageJobResult.ts).
 */
export async function runPooledFluxImageJob(job: PreparedFluxImageJob, context: JobContext): Promise<ImageJobResult> {
	await getStore().journal.link(context.jobId, job.identity.key);
	return await runFluxImageJob(job, context);
}
