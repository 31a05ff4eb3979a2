/* eslint-disable @n8n/community-nodes/require-node-api-error -- runs in the pool, outside any node: the collector or serial node turns errors into node errors. */
/**
 * One FLUX image job under the result store and the write-ahead journal ("never paying twice"):
 * a stored result is read back, an acknowledged but unfinished job is re-attached, a job that may
 * have been sent but was never acknowledged fails its slot, and only otherwise is a new job paid for.
 * Callers asking for the same key at once in one process share one upstream job; across processes the
 * key's claim makes one of them its owner (ownedJob.ts).
 */
import { awaitImage, awaitImageFile, FluxError, generateImage, generateImageFile, isFluxError, isImageFile, type FluxImageFileResult, type GenerateOptions } from '../flux';
import type { FluxImageRequest, FluxCredentials } from '../flux';
import type { JobContext } from '../pool';
import { getStore, SingleFlight, type JournalRecord, type Store } from '../store';
import { readyImageDownloadDir, sweepImageDownloadsNowAndThen, type ImageJobResult } from './imageJobResult';
import type { PreparedFluxImageJob } from './prepareFluxImageJob';
import { accountAdmission } from './accountAdmission';
import { journalJobFailure } from './journalFailure';
import { NOT_KEPT, obtainOwned } from './ownedJob';
import { SubmitJournal } from './submitJournal';
import { requestEndpoint } from '../flux/request';
import { processWide } from '../processWide';
import { spendBudget } from '../spend';

/** The process-wide single flight of image jobs (shared by every copy of the package: src/processWide.ts). */
function flights(): SingleFlight<ImageJobResult> {
	return processWide('imageFlights', () => new SingleFlight<ImageJobResult>());
}

/** The job lets go of its reference images (shared encoded copies): the upstream task has them now. */
export function releaseReferenceImages(job: PreparedFluxImageJob): void {
	job.request.images = [];
}

/** Where the image of one job goes: stored in the result store (a reference), or left as its file, or in memory. */
async function place(store: Store, key: string, cacheMode: string, image: FluxImageFileResult): Promise<ImageJobResult> {
	const { mimeType, fileExtension, taskId } = image;
	const base = { outcome: 'success' as const, mimeType, fileExtension, taskId, cached: false, cost: image.cost ?? null };
	if (!isImageFile(image)) {
		const kept = cacheMode !== 'off' && (await store.results.put(key, image.buffer, { mimeType, fileExtension, taskId }));
		return kept ? { ...base, storeKey: key, byteLength: image.buffer.length } : { ...base, buffer: image.buffer, byteLength: image.buffer.length };
	}
	const kept = cacheMode !== 'off' && (await store.results.adoptFile(key, image, { mimeType, fileExtension, taskId }));
	// Stored: the file became the store's content (no copy). Else the file stays (a store fault never loses the image).
	return kept ? { ...base, storeKey: key, byteLength: image.byteLength, fresh: true } : { ...base, filePath: image.filePath, byteLength: image.byteLength };
}

/**
 * Keep the image (unless Cache is Off) and advance the journal; a store fault never loses the image. The result
 * holds no bytes once they are on disk: a store key, or the download file.
 */
export async function keepImage(store: Store, key: string, cacheMode: string, image: FluxImageFileResult): Promise<ImageJobResult> {
	const placed = await place(store, key, cacheMode, image);
	if (placed.storeKey !== undefined && (await store.journal.stored(key))) return placed;
	// Cache Off leaves an earlier stored result of this key reusable; otherwise a re-run is a new job.
	if (cacheMode === 'off' && (await store.results.has(key)) && (await store.journal.stored(key))) return placed;
	await store.journal.failed(key, cacheMode === 'off' ? 'delivered; not kept (Cache: Off)' : 'delivered; the result store could not keep it', [], NOT_KEPT);
	return placed; // stored but not journaled: the reference still reads the bytes
}

/** The job's image downloaded into the download folder (next to the store), or into memory when it cannot be written. */
async function imageFileOptions(store: Store, options: GenerateOptions): Promise<GenerateOptions & { downloadDir?: string }> {
	void sweepImageDownloadsNowAndThen(store);
	return { ...options, downloadDir: await readyImageDownloadDir(store) };
}

function generate(credentials: FluxCredentials, request: FluxImageRequest, options: GenerateOptions & { downloadDir?: string }): Promise<FluxImageFileResult> {
	const { downloadDir } = options;
	return downloadDir === undefined ? generateImage(credentials, request, options) : generateImageFile(credentials, request, { ...options, downloadDir });
}

/** {@link awaitImageFile} into the download folder, or {@link awaitImage} into memory when it cannot be written. */
export async function awaitJobImage(store: Store, credentials: FluxCredentials, task: { taskId: string; pollingUrl?: string }, options: GenerateOptions): Promise<FluxImageFileResult> {
	const { downloadDir, ...rest } = await imageFileOptions(store, options);
	return downloadDir === undefined ? await awaitImage(credentials, task, rest) : await awaitImageFile(credentials, task, { ...rest, downloadDir });
}

/** A final failure, journaled by the shared rule (see journalJobFailure). */
async function journalFailure(store: Store, job: PreparedFluxImageJob, error: unknown, acknowledged: boolean, posted = true): Promise<void> {
	await journalJobFailure(store, job.identity.key, error, { acknowledged, posted }, [job.credentials.apiKey]);
}

function fluxOptions(job: PreparedFluxImageJob, context: JobContext, attemptsBefore: number) {
	return {
		signal: context.signal,
		timeoutMs: job.timeoutMs,
		maxDownloadBytes: job.maxDownloadBytes,
		// A job's attempts are its submits (and re-attaches): 1 means sent once.
		onAttempt: (attempts: { submit: number }) => context.setAttempts(attemptsBefore + attempts.submit),
		// The account-wide limit (per process, or shared through Redis): waits for a turn before submitting.
		admission: accountAdmission(job.credentials, requestEndpoint(job.request), 'image'),
		// The spend limits (src/spend): reserved right before each submit POST; none when no limit applies.
		budget: spendBudget(job.spend),
	};
}

/** A new, paid job: `submitting` is journaled right before each POST leaves, `submitted` once acknowledged (submitJournal.ts). */
async function sendNew(store: Store, job: PreparedFluxImageJob, context: JobContext, attemptsBefore: number): Promise<ImageJobResult> {
	const { key, apiStyle, baseUrl, model, apiKeyHash } = job.identity;
	if (context.signal.aborted) throw new FluxError('cancelled', 'FLUX job cancelled before it was submitted');
	const journal = new SubmitJournal(store, key, { jobId: context.jobId, apiStyle, baseUrl, model, apiKeyHash }, [job.credentials.apiKey]);
	try {
		const options = await imageFileOptions(store, fluxOptions(job, context, attemptsBefore));
		const result = await generate(job.credentials, job.request, { ...options, ...journal.hooks(() => releaseReferenceImages(job)) });
		await journal.settled();
		return await keepImage(store, key, job.cacheMode, result);
	} catch (error) {
		await journal.failed(error);
		throw error;
	}
}

/** Poll the journaled upstream task instead of paying again; resolves undefined when upstream forgot it. */
async function reattach(store: Store, job: PreparedFluxImageJob, context: JobContext, record: JournalRecord): Promise<ImageJobResult | undefined> {
	context.setAttempts(1);
	try {
		const task = { taskId: record.taskId ?? '', pollingUrl: record.pollingUrl };
		return await keepImage(store, job.identity.key, job.cacheMode, await awaitJobImage(store, job.credentials, task, fluxOptions(job, context, 1)));
	} catch (error) {
		if (isFluxError(error) && error.kind === 'task_not_found') return undefined;
		await journalFailure(store, job, error, true);
		throw error;
	}
}

/** The key's stored image, read through its integrity check now (streamed), so a corrupt entry is a miss. */
async function readStored(store: Store, key: string): Promise<ImageJobResult | undefined> {
	const hit = await store.results.check(key);
	return hit && { outcome: 'success', mimeType: hit.mimeType, fileExtension: hit.fileExtension, taskId: hit.taskId, byteLength: hit.byteLength, storeKey: key, cached: true, fresh: true };
}

/** Read, re-attach or send, under the key's claim (ownedJob.ts). */
async function obtain(store: Store, job: PreparedFluxImageJob, context: JobContext): Promise<ImageJobResult> {
	const { key } = job.identity;
	return await obtainOwned(store, key, job.cacheMode, context.signal, {
		readStored: () => readStored(store, key),
		reattach: (record) => reattach(store, job, context, record),
		sendNew: (attemptsBefore) => sendNew(store, job, context, attemptsBefore),
	}, job.timeoutMs);
}

/**
 * The image of one job, through the store: stored → read back (`cached: true`); acknowledged but unfinished →
 * re-attached; maybe sent → fails with MAYBE_PAID_REASON; else a new job. Concurrent callers with the same key
 * share one flight; a caller whose own signal is live retries once when the shared flight was cancelled.
 */
export async function obtainFluxImage(job: PreparedFluxImageJob, context: JobContext, store: Store = getStore()): Promise<ImageJobResult> {
	// Refresh asks for a new job: it never joins (nor is joined by) a flight that may serve the stored result.
	const flightKey = job.cacheMode === 'refresh' ? `${job.identity.key}:refresh` : job.identity.key;
	const run = () => flights().run(flightKey, () => obtain(store, job, context));
	let image: ImageJobResult;
	try {
		image = await run();
	} catch (error) {
		const foreignCancel = isFluxError(error) && error.kind === 'cancelled' && !context.signal.aborted;
		if (!foreignCancel) throw error;
		image = await run();
	}
	// Off joined a Reuse flight that read the store: Off never takes a stored result, it asks for its own job.
	if (job.cacheMode === 'off' && image.cached) image = await flights().run(`${flightKey}:off`, () => obtain(store, job, context));
	// Each caller's slot needs the image until its node delivered it (deliveredImage): the size bound spares it.
	if (image.storeKey !== undefined) store.inUse.use(image.storeKey);
	else if (image.filePath !== undefined) store.inUse.useFile(image.filePath);
	return image;
}

/** The slot's node handed the image to n8n: the store's size bound may remove it from now on. */
export function deliveredImage(result: ImageJobResult, store: Store = getStore()): void {
	if (result.storeKey !== undefined) store.inUse.done(result.storeKey);
	else if (result.filePath !== undefined) store.inUse.done(result.filePath);
}
