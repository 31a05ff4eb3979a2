import { FluxError, redact } from '../flux';
import type { JobContext } from '../pool';
import { recentAccounts } from '../spend';
import { getStore } from '../store';
import type { PreparedFluxVideoJob } from './prepareFluxVideoJob';
import { obtainFluxVideo, releaseVideoMedia } from './storedFluxVideoJob';
import type { VideoJobResult } from './videoJobResult';

/**
 * Run one FLUX video job through the result store. With Skip Error a failure becomes `skipped_error` with the
 * redacted reason and no clip (there is no placeholder clip).
 */
export async function runFluxVideoJob(job: PreparedFluxVideoJob, context: JobContext): Promise<VideoJobResult> {
	recentAccounts().note(context.jobId, job.spend); // the collector's report shows this account's spend
	try {
		return await obtainFluxVideo(job, context);
	} catch (error) {
		const cancelled = context.signal.aborted || (error instanceof FluxError && error.kind === 'cancelled');
		// A job a spend limit refused is not a failed generation: Skip Error does not hide it behind a placeholder.
		const refused = error instanceof FluxError && error.kind === 'budget_exceeded';
		// Runs in the pool, outside any node: the collector or serial node turns this into a node error.
		// eslint-disable-next-line @n8n/community-nodes/require-node-api-error
		if (!job.skipError || cancelled || refused) throw error;
		return {
			outcome: 'skipped_error',
			cached: false,
			taskId: error instanceof FluxError ? error.taskId : undefined,
			error: error instanceof FluxError ? error.message : redact((error as Error).message ?? String(error), [job.credentials.apiKey]),
			errorKind: error instanceof FluxError ? error.kind : undefined,
			cost: error instanceof FluxError ? (error.cost ?? null) : null,
		};
	} finally {
		releaseVideoMedia(job);
	}
}

/** The twin's run: the pool job id linked to its key in the journal first, so a collector in a new process finds it. */
export async function runPooledFluxVideoJob(job: PreparedFluxVideoJob, context: JobContext): Promise<VideoJobResult> {
	await getStore().journal.link(context.jobId, job.identity.key);
	return await runFluxVideoJob(job, context);
}
