/* eslint-disable @n8n/community-nodes/require-node-api-error -- runs in the pool, outside any node: the collector or serial node turns errors into node errors. */
/**
 * One FLUX job of any kind (image or video) under the result store and the write-ahead journal ("never paying
 * twice"): a stored result is read back, an acknowledged but unfinished job is re-attached, a job that may have
 * been sent but was never acknowledged fails its slot, and only otherwise is a new job paid for. Callers asking
 * for the same key at once in one process share one upstream job; across processes the key's claim makes one of
 * them its owner (ownedJob.ts). What differs by kind (how the result is fetched and kept) is its JobKind.
 */
import { FluxError, isFluxError, redact, type FluxCredentials, type GenerateOptions } from '../flux';
import type { JobContext } from '../pool';
import { getStore, SingleFlight, type CacheMode, type JournalRecord, type Store } from '../store';
import { processWide } from '../processWide';
import { recentAccounts, type SpendTerms } from '../spend';
import { accountAdmission } from './accountAdmission';
import { sweepDownloadsNowAndThen } from './downloadFolders';
import type { FluxJobIdentity } from './fluxJobKey';
import { keepResult, ownCopy, resultFiles, type Download, type JobResult } from './jobResult';
import { obtainOwned } from './ownedJob';
import { submitBudget } from './spendTerms';
import { journalJobFailure, SubmitJournal } from './submitJournal';

/** What every prepared job carries for its run (validated, ready to run anywhere: no n8n context needed). */
export interface StoredJob {
	credentials: FluxCredentials;
	skipError: boolean;
	timeoutMs: number;
	maxDownloadBytes: number;
	/** Options → Cache. */
	cacheMode: CacheMode;
	/** The result store's key and what the journal records about the job. */
	identity: FluxJobIdentity;
	/** Its account's daily limits, price key and the node's Max New Jobs per Execution (src/spend). */
	spend?: SpendTerms;
}

/** How one kind of job is fetched and kept (images: imageJobs.ts; clips: videoJobs.ts). */
export interface JobKind<J extends StoredJob> {
	/** Also names its process-wide single flight (`imageFlights`, `videoFlights`: src/processWide.ts). */
	kind: 'image' | 'video';
	/** A new paid job: submit, poll, download (`options` carry the limits and the journal, as steps of the submit). */
	generate(store: Store, job: J, options: GenerateOptions): Promise<Download>;
	/** Re-attach to an upstream task: poll, download. */
	awaitTask(store: Store, credentials: FluxCredentials, task: { taskId: string; pollingUrl?: string }, options: GenerateOptions): Promise<Download>;
	/** The key's stored result (cached: true), or undefined; with `storedSince`, only a result stored at or after it. */
	readStored(store: Store, key: string, storedSince?: number): Promise<JobResult | undefined>;
	/** The job lets go of its inputs (base64 media): the upstream task has them now. */
	release(job: J): void;
	/** With Skip Error: the result of a failed job (`failure` holds the redacted reason, task id and cost). */
	skipped(failure: Pick<JobResult, 'cached' | 'taskId' | 'error' | 'errorKind' | 'cost'>): JobResult;
}

function jobOptions<J extends StoredJob>(kind: JobKind<J>, job: J, context: JobContext, attemptsBefore: number): GenerateOptions {
	return {
		signal: context.signal,
		timeoutMs: job.timeoutMs,
		maxDownloadBytes: job.maxDownloadBytes,
		// A job's attempts are its submits (and re-attaches): 1 means sent once.
		onAttempt: (attempts) => context.setAttempts(attemptsBefore + attempts.submit),
		// The account-wide limit (per process, or shared through Redis): waits for a turn before submitting.
		admission: accountAdmission(job.credentials, job.identity.model, kind.kind),
		// The spend limits (src/spend): reserved right before each submit POST; none when no limit applies.
		budget: submitBudget(job.spend),
	};
}

/** A new, paid job: its journal is a step of the submit (`submitting` right before each POST leaves, `submitted` once acknowledged: submitJournal.ts). */
async function sendNew<J extends StoredJob>(kind: JobKind<J>, store: Store, job: J, context: JobContext, attemptsBefore: number): Promise<JobResult> {
	const { key, apiStyle, baseUrl, model, apiKeyHash } = job.identity;
	if (context.signal.aborted) throw new FluxError('cancelled', 'FLUX job cancelled before it was submitted');
	const journal = new SubmitJournal(store, key, { jobId: context.jobId, apiStyle, baseUrl, model, apiKeyHash }, [job.credentials.apiKey], () => kind.release(job));
	try {
		const download = await kind.generate(store, job, { ...jobOptions(kind, job, context, attemptsBefore), steps: [journal] });
		await journal.settled();
		return await keepResult(store, key, job.cacheMode, download);
	} catch (error) {
		await journal.failed(error);
		throw error;
	}
}

/** Poll the journaled upstream task instead of paying again; resolves undefined when upstream forgot it. */
async function reattach<J extends StoredJob>(kind: JobKind<J>, store: Store, job: J, context: JobContext, record: JournalRecord): Promise<JobResult | undefined> {
	context.setAttempts(1);
	try {
		const task = { taskId: record.taskId ?? '', pollingUrl: record.pollingUrl };
		const download = await kind.awaitTask(store, job.credentials, task, jobOptions(kind, job, context, 1));
		// The cost its submit answer reported (journaled), when polling did not report one.
		const costed = download.cost !== undefined || record.cost === undefined ? download : { ...download, cost: record.cost };
		return await keepResult(store, job.identity.key, job.cacheMode, costed);
	} catch (error) {
		if (isFluxError(error) && error.kind === 'task_not_found') return undefined;
		await journalJobFailure(store, job.identity.key, error, { acknowledged: true, posted: true }, [job.credentials.apiKey]);
		throw error;
	}
}

/** Read, re-attach or send, under the key's claim (ownedJob.ts). */
async function obtain<J extends StoredJob>(kind: JobKind<J>, store: Store, job: J, context: JobContext): Promise<JobResult> {
	const { key } = job.identity;
	void sweepDownloadsNowAndThen(store);
	return await obtainOwned(store, key, job.cacheMode, context.signal, {
		readStored: (storedSince) => kind.readStored(store, key, storedSince),
		reattach: (record) => reattach(kind, store, job, context, record),
		sendNew: (attemptsBefore) => sendNew(kind, store, job, context, attemptsBefore),
	}, job.timeoutMs);
}

/** Runs `work` in the kind's flight `key`; a caller that joined gets its own copy of the owner's result (ownCopy). */
async function inFlight<J extends StoredJob>(kind: JobKind<J>, key: string, work: () => Promise<JobResult>): Promise<JobResult> {
	let owner = false;
	const result = await processWide(`${kind.kind}Flights`, () => new SingleFlight<JobResult>()).run(key, () => ((owner = true), work()));
	return owner ? result : ownCopy(result);
}

/**
 * The result of one job, through the store (the file's comment). Concurrent callers with the same key share one
 * flight; a caller whose own signal is live retries once when the shared flight was cancelled.
 */
export async function obtainStored<J extends StoredJob>(kind: JobKind<J>, job: J, context: JobContext, store: Store = getStore()): Promise<JobResult> {
	// Refresh asks for a new job: it never joins (nor is joined by) a flight that may serve the stored result.
	const flightKey = job.cacheMode === 'refresh' ? `${job.identity.key}:refresh` : job.identity.key;
	const run = () => inFlight(kind, flightKey, () => obtain(kind, store, job, context));
	let result: JobResult;
	try {
		result = await run();
	} catch (error) {
		const foreignCancel = isFluxError(error) && error.kind === 'cancelled' && !context.signal.aborted;
		if (!foreignCancel) throw error;
		result = await run();
	}
	// Off joined a Reuse flight that read the store: Off never takes a stored result, it asks for its own job.
	if (job.cacheMode === 'off' && result.cached) result = await inFlight(kind, `${flightKey}:off`, () => obtain(kind, store, job, context));
	// Each caller's slot needs the result until its node delivered it (delivered): the size bound spares it.
	for (const file of resultFiles(result)) {
		if (file.storeKey !== undefined) store.inUse.use(file.storeKey);
		else if (file.filePath !== undefined) store.inUse.useFile(file.filePath);
	}
	return result;
}

/** The slot's node handed the result (and a draft's cache) to n8n: the store's size bound may remove it from now on. */
export function delivered(result: JobResult, store: Store = getStore()): void {
	for (const file of resultFiles(result)) {
		const id = file.storeKey ?? file.filePath;
		if (id !== undefined) store.inUse.done(id);
	}
}

/**
 * Run one job through the result store (obtainStored). With Skip Error, a failure becomes the kind's `skipped`
 * result (a placeholder is never stored); a cancelled job and a spend refusal are never hidden behind one.
 */
export async function runStoredJob<J extends StoredJob>(kind: JobKind<J>, job: J, context: JobContext): Promise<JobResult> {
	recentAccounts().note(context.jobId, job.spend); // the collector's report shows this account's spend
	try {
		return await obtainStored(kind, job, context);
	} catch (error) {
		// isFluxError, not instanceof: through the process-wide flights, the error may come from another copy of the package.
		const flux = isFluxError(error) ? error : undefined;
		const cancelled = context.signal.aborted || flux?.kind === 'cancelled';
		// A job a spend limit refused is not a failed generation: Skip Error does not hide it behind a placeholder.
		const refused = flux?.kind === 'budget_exceeded';
		if (!job.skipError || cancelled || refused) throw error;
		return kind.skipped({
			cached: false,
			taskId: flux?.taskId,
			error: flux ? flux.message : redact((error as Error).message ?? String(error), [job.credentials.apiKey]),
			errorKind: flux?.kind,
			cost: flux ? (flux.cost ?? null) : null,
		});
	} finally {
		kind.release(job);
	}
}

/**
 * The twin's run: the job's pool job id linked to its key in the journal first (so a collector in a new process
 * finds it, however it is served). The pool keeps no bytes on disk: a store key or a file.
 */
export async function runPooledStoredJob<J extends StoredJob>(kind: JobKind<J>, job: J, context: JobContext): Promise<JobResult> {
	await getStore().journal.link(context.jobId, job.identity.key);
	return await runStoredJob(kind, job, context);
}
