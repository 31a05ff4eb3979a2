/**
 * The FLUX parts of the video collector: a result's binary (streamed from the result store or its file), tasks
 * the pool does not know (n8n restarted) resolved through the job journal, as for images.
 */
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import type { UnknownTask } from '../collect';
import { awaitVideo, FluxError, isFluxError } from '../flux';
import { reattachCredentials } from '../fluxN8n/reattachCredentials';
import { getStore, MAYBE_PAID_REASON, type JournalRecord, type Store } from '../store';
import { deliveredVideo, keepVideo } from './storedFluxVideoJob';
import { openVideo, videoDownloadDir, VIDEO_MIME_TYPE, type VideoJobResult } from './videoJobResult';

/** The binary of a finished video job (`fileBase` e.g. "slot-03" → slot-03.mp4); none for a skipped job (no placeholder clip). */
export async function videoResultToBinary(ctx: IExecuteFunctions, result: VideoJobResult, fileBase: string): Promise<IBinaryData | undefined> {
	if (result.outcome !== 'success') return undefined;
	const binary = await ctx.helpers.prepareBinaryData(await openVideo(result), `${fileBase}.mp4`, VIDEO_MIME_TYPE);
	deliveredVideo(result);
	return binary;
}

async function reattach(ctx: IExecuteFunctions, store: Store, jobKey: string, record: JournalRecord, task: UnknownTask, signal: AbortSignal): Promise<VideoJobResult> {
	const credentials = await reattachCredentials(ctx, record, task.itemIndex);
	try {
		const video = await awaitVideo(credentials, { taskId: record.taskId ?? '', pollingUrl: record.pollingUrl }, { signal, downloadDir: videoDownloadDir() });
		return await keepVideo(store, jobKey, 'reuse', video);
	} catch (error) {
		if (isFluxError(error) && error.kind === 'task_not_found') await store.journal.failed(jobKey, error.message);
		// The collector makes this a failed slot (waitForSlots).
		// eslint-disable-next-line @n8n/community-nodes/require-node-api-error
		throw error;
	}
}

/** The key's stored clip when its entry and content are there. */
async function storedVideo(store: Store, jobKey: string): Promise<VideoJobResult | undefined> {
	const meta = await store.results.present(jobKey);
	return meta && { outcome: 'success', storeKey: jobKey, taskId: meta.taskId, byteLength: meta.byteLength, cached: true };
}

/** A task this process's pool does not know, resolved through the journal under the key's claim (as resolveUnknownImageJob). */
export async function resolveUnknownVideoJob(ctx: IExecuteFunctions, task: UnknownTask, signal: AbortSignal): Promise<VideoJobResult | undefined> {
	const store = getStore();
	const found = await store.journal.findByJobId(task.jobId);
	if (!found) return undefined;
	const { jobKey } = found;
	const stored = await storedVideo(store, jobKey);
	if (stored) return stored;
	return await store.claims.withClaim(jobKey, signal, async () => {
		const record = (await store.journal.read(jobKey)) ?? found.record;
		switch (record.state) {
			case 'stored':
				return await storedVideo(store, jobKey);
			case 'submitted':
				return await reattach(ctx, store, jobKey, record, task, signal);
			case 'submitting':
				throw new FluxError('maybe_submitted', MAYBE_PAID_REASON, { taskId: record.taskId });
			case 'failed':
				return undefined;
		}
	});
}
