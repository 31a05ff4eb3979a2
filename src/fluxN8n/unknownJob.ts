/**
 * A task the collector's pool does not know (n8n restarted, another main process), resolved through the job
 * journal for any kind of job (storedJob.ts): an intact stored result wins; otherwise, under the key's claim (a
 * live owner elsewhere finishes first): acknowledged upstream → re-attached with the collector's optional FLUX
 * credential; maybe sent → fails with MAYBE_PAID_REASON; unknown to the journal or failed → undefined (the slot
 * stays unknown/expired).
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { UnknownTask } from '../collect';
import { apiKeyHash } from '../account';
import { FluxError, isFluxError, type FluxCredentials } from '../flux';
import { getStore, MAYBE_PAID_REASON, type JournalRecord, type Store } from '../store';
import { sweepDownloadsNowAndThen } from './downloadFolders';
import { parseFluxCredentials } from './fluxCredentials';
import { keepResult, type JobResult } from './jobResult';
import type { JobKind, StoredJob } from './storedJob';

const SET_CREDENTIAL =
	'Its job was still generating upstream when n8n stopped. Set the FLUX API credential on this collector node (the account that sent it) to re-attach to it without paying again.';
const WRONG_ACCOUNT = "The FLUX API credential on this collector is not the account that sent this job: set that account's credential to re-attach.";

/** The credential that sent `record`'s job: the collector's optional FLUX credential (item `itemIndex`), which must be that account. */
async function reattachCredentials(ctx: IExecuteFunctions, record: JournalRecord, itemIndex: number): Promise<FluxCredentials> {
	// A credential that cannot be read is none set on the collector; one that is set but unusable throws its own error.
	const credentials = await ctx.getCredentials('fluxApi', itemIndex).then(parseFluxCredentials, () => undefined);
	if (!credentials) throw new FluxError('auth', SET_CREDENTIAL, { taskId: record.taskId });
	if (apiKeyHash(credentials.apiKey) !== record.apiKeyHash) throw new FluxError('auth', WRONG_ACCOUNT, { taskId: record.taskId });
	return credentials;
}

/** Poll the journaled upstream task with the collector's credential, keep the result, return it. */
async function reattach<J extends StoredJob>(kind: JobKind<J>, ctx: IExecuteFunctions, store: Store, jobKey: string, record: JournalRecord, task: UnknownTask, signal: AbortSignal): Promise<JobResult> {
	const credentials = await reattachCredentials(ctx, record, task.itemIndex);
	try {
		const download = await kind.awaitTask(store, credentials, { taskId: record.taskId ?? '', pollingUrl: record.pollingUrl }, { signal });
		return await keepResult(store, jobKey, 'reuse', download);
	} catch (error) {
		if (isFluxError(error) && error.kind === 'task_not_found') await store.journal.failed(jobKey, error.message);
		// The collector makes this a failed slot (waitForSlots).
		// eslint-disable-next-line @n8n/community-nodes/require-node-api-error
		throw error;
	}
}

/** The job of an unknown task, resolved through the journal (see the file's opening comment). */
export async function resolveUnknownJob<J extends StoredJob>(kind: JobKind<J>, ctx: IExecuteFunctions, task: UnknownTask, signal: AbortSignal): Promise<JobResult | undefined> {
	const store = getStore();
	void sweepDownloadsNowAndThen(store);
	const found = await store.journal.findByJobId(task.jobId);
	if (!found) return undefined;
	const { jobKey } = found;
	const stored = await kind.readStored(store, jobKey);
	if (stored) return stored;
	return await store.claims.withClaim(jobKey, signal, async () => {
		const record = (await store.journal.read(jobKey)) ?? found.record;
		switch (record.state) {
			case 'stored':
				return await kind.readStored(store, jobKey);
			case 'submitted':
				return await reattach(kind, ctx, store, jobKey, record, task, signal);
			case 'submitting':
				throw new FluxError('maybe_submitted', MAYBE_PAID_REASON, { taskId: record.taskId });
			case 'failed':
				return undefined;
		}
	});
}
