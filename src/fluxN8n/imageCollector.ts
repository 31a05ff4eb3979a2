/**
 * The FLUX parts of the image collector: a result's binary (read back from the result store when the pool
 * kept only its reference), tasks the pool does not know (n8n restarted) resolved through the job journal,
 * and the report's note when the store could not be used.
 */
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import type { UnknownTask } from '../collect';
import { FluxError, isFluxError } from '../flux';
import { getStore, MAYBE_PAID_REASON, type JournalRecord, type Store } from '../store';
import { reattachCredentials } from './reattachCredentials';
import { redisWarnings } from '../redis';
import { imageSource, type ImageJobResult } from './imageJobResult';
import { awaitJobImage, keepImage } from './storedFluxImageJob';

/** The binary of a finished image job (`fileBase` e.g. "slot-03"). */
export async function imageResultToBinary(ctx: IExecuteFunctions, result: ImageJobResult, fileBase: string): Promise<IBinaryData> {
	return await ctx.helpers.prepareBinaryData(await imageSource(result), `${fileBase}.${result.fileExtension}`, result.mimeType);
}

/** Poll the journaled upstream task with the collector's credential, keep the image, return it. */
async function reattach(ctx: IExecuteFunctions, store: Store, jobKey: string, record: JournalRecord, task: UnknownTask, signal: AbortSignal) {
	const credentials = await reattachCredentials(ctx, record, task.itemIndex);
	try {
		const image = await awaitJobImage(store, credentials, { taskId: record.taskId ?? '', pollingUrl: record.pollingUrl }, { signal });
		return await keepImage(store, jobKey, 'reuse', image);
	} catch (error) {
		if (isFluxError(error) && error.kind === 'task_not_found') await store.journal.failed(jobKey, error.message);
		// The collector makes this a failed slot (waitForSlots).
		// eslint-disable-next-line @n8n/community-nodes/require-node-api-error
		throw error;
	}
}

/**
 * A task this process's pool does not know, resolved through the journal: stored → read from the store;
 * acknowledged upstream → re-attached (needs the collector's optional FLUX credential); maybe sent → fails
 * with MAYBE_PAID_REASON; unknown to the journal or failed → undefined (the slot stays unknown/expired).
 */
export async function resolveUnknownImageJob(
	ctx: IExecuteFunctions,
	task: UnknownTask,
	signal: AbortSignal,
): Promise<ImageJobResult | undefined> {
	const store = getStore();
	const found = await store.journal.findByJobId(task.jobId);
	if (!found) return undefined;
	const { jobKey, record } = found;
	switch (record.state) {
		case 'stored': {
			const hit = await store.results.check(jobKey); // read through its integrity check: corrupt is missing
			if (!hit) return undefined;
			const { mimeType, fileExtension, taskId, byteLength } = hit;
			return { outcome: 'success', storeKey: jobKey, mimeType, fileExtension, taskId, byteLength, cached: true, fresh: true };
		}
		case 'submitted':
			return await reattach(ctx, store, jobKey, record, task, signal);
		case 'submitting':
			throw new FluxError('maybe_submitted', MAYBE_PAID_REASON, { taskId: record.taskId });
		case 'failed':
			return undefined;
	}
}

/** The report's notes: the result store could not be used; Redis is misconfigured or was not usable (empty when all is well). */
export function storeWarnings(): string[] {
	const health = getStore().health();
	const redis = redisWarnings(); // a bad Redis setting, or an outage: jobs ran on per-process limits and the local journal
	if (health.ok) return redis;
	return [`${health.reason ?? 'The result store could not be used'}. Jobs still ran and were delivered, but results were not kept: a re-run pays again.`, ...redis];
}
