/* eslint-disable @n8n/community-nodes/require-node-api-error -- runs in the pool, outside any node: the collector or serial node turns errors into node errors. */
/**
 * One FLUX video job under the result store and the write-ahead journal, as for images ("never paying twice"):
 * stored → the store's reference; acknowledged but unfinished → re-attached; maybe sent → fails; else a new job.
 * The clip streams from the download into the store (put.stream), then the download file is removed. Across
 * processes the key's claim makes one caller its owner (ownedJob.ts, shared with images).
 */
import { randomUUID } from 'node:crypto';
import { linkSync } from 'node:fs';
import { rm } from 'node:fs/promises';

import { awaitVideo, FluxError, generateVideo, isFluxError, type FluxVideoResult, type VideoOptions } from '../flux';
import type { JobContext } from '../pool';
import { getStore, SingleFlight, type JournalRecord, type Store } from '../store';
import type { PreparedFluxVideoJob } from './prepareFluxVideoJob';
import { accountAdmission } from '../fluxN8n/accountAdmission';
import { journalJobFailure } from '../fluxN8n/journalFailure';
import { NOT_KEPT, obtainOwned } from '../fluxN8n/ownedJob';
import { SubmitJournal } from '../fluxN8n/submitJournal';
import { VIDEO_MODEL } from '../flux/videoOptions';
import { processWide } from '../processWide';
import { spendBudget } from '../spend';
import { sweepVideoDownloads, videoDownloadDir, VIDEO_MIME_TYPE, type VideoJobResult } from './videoJobResult';

/** The process-wide single flight of video jobs (shared by every copy of the package: src/processWide.ts). */
const flights = () => processWide('videoFlights', () => new SingleFlight<VideoJobResult>());

/** The job lets go of its base64 media: the upstream task has them now. */
export function releaseVideoMedia(job: PreparedFluxVideoJob): void {
	delete job.request.keyframes;
	delete job.request.startVideo;
}

/** Streams the downloaded clip into the store (unless Cache is Off), advances the journal; the clip is never lost. */
export async function keepVideo(store: Store, key: string, cacheMode: string, video: FluxVideoResult): Promise<VideoJobResult> {
	const base = { outcome: 'success' as const, taskId: video.taskId, byteLength: video.byteLength, cached: false, cost: video.cost ?? null };
	const meta = { mimeType: VIDEO_MIME_TYPE, fileExtension: 'mp4', taskId: video.taskId };
	const put = cacheMode !== 'off' && (await store.results.putFile(key, video.filePath, meta));
	if (put && (await store.journal.stored(key))) {
		await rm(video.filePath, { force: true });
		return { ...base, storeKey: key };
	}
	if (cacheMode === 'off' && (await store.results.has(key)) && (await store.journal.stored(key))) return { ...base, filePath: video.filePath };
	await store.journal.failed(key, cacheMode === 'off' ? 'delivered; not kept (Cache: Off)' : 'delivered; the result store could not keep it', [], NOT_KEPT);
	return { ...base, filePath: video.filePath };
}

async function journalFailure(store: Store, job: PreparedFluxVideoJob, error: unknown, acknowledged: boolean, posted = true): Promise<void> {
	await journalJobFailure(store, job.identity.key, error, { acknowledged, posted }, [job.credentials.apiKey]);
}

function videoOptions(job: PreparedFluxVideoJob, context: JobContext, attemptsBefore: number): VideoOptions {
	return {
		signal: context.signal,
		timeoutMs: job.timeoutMs,
		maxDownloadBytes: job.maxDownloadBytes,
		downloadDir: videoDownloadDir(),
		onAttempt: (attempts) => context.setAttempts(attemptsBefore + attempts.submit),
		// The account-wide limit of flux-3-video (COMFLY_VIDEO_CONCURRENCY; shared through Redis in queue mode).
		admission: accountAdmission(job.credentials, VIDEO_MODEL, 'video'),
		// The spend limits (src/spend): reserved right before each submit POST; none when no limit applies.
		budget: spendBudget(job.spend),
	};
}

async function sendNew(store: Store, job: PreparedFluxVideoJob, context: JobContext, attemptsBefore: number): Promise<VideoJobResult> {
	const { key, apiStyle, baseUrl, model, apiKeyHash } = job.identity;
	if (context.signal.aborted) throw new FluxError('cancelled', 'FLUX job cancelled before it was submitted');
	const journal = new SubmitJournal(store, key, { jobId: context.jobId, apiStyle, baseUrl, model, apiKeyHash }, [job.credentials.apiKey]);
	try {
		const video = await generateVideo(job.credentials, job.request, { ...videoOptions(job, context, attemptsBefore), ...journal.hooks(() => releaseVideoMedia(job)) });
		await journal.settled();
		return await keepVideo(store, key, job.cacheMode, video);
	} catch (error) {
		await journal.failed(error);
		throw error;
	}
}

async function reattach(store: Store, job: PreparedFluxVideoJob, context: JobContext, record: JournalRecord): Promise<VideoJobResult | undefined> {
	context.setAttempts(1);
	try {
		const task = { taskId: record.taskId ?? '', pollingUrl: record.pollingUrl };
		return await keepVideo(store, job.identity.key, job.cacheMode, await awaitVideo(job.credentials, task, videoOptions(job, context, 1)));
	} catch (error) {
		if (isFluxError(error) && error.kind === 'task_not_found') return undefined;
		await journalFailure(store, job, error, true);
		throw error;
	}
}

/** The key's stored clip when its entry and content file are there (its bytes are checked as the collector streams them). */
async function readStored(store: Store, key: string, storedSince = 0): Promise<VideoJobResult | undefined> {
	const meta = await store.results.present(key);
	if (!meta || meta.storedAt < storedSince) return undefined;
	return { outcome: 'success', storeKey: key, taskId: meta.taskId, byteLength: meta.byteLength, cached: true };
}

/** Read, re-attach or send, under the key's claim (ownedJob.ts). */
async function obtain(store: Store, job: PreparedFluxVideoJob, context: JobContext): Promise<VideoJobResult> {
	const { key } = job.identity;
	void sweepVideoDownloads();
	return await obtainOwned(store, key, job.cacheMode, context.signal, {
		readStored: (storedSince) => readStored(store, key, storedSince),
		reattach: (record) => reattach(store, job, context, record),
		sendNew: (attemptsBefore) => sendNew(store, job, context, attemptsBefore),
	}, job.timeoutMs);
}

/**
 * Runs `work` in the flight `key`. A clip left as a file (Cache Off) belongs to the flight's owner; each caller
 * that joined gets a hard link of its own (made synchronously as the flight settles, before the owner can remove
 * its file), so every caller may remove its file once delivered.
 */
async function sharedFlight(key: string, work: () => Promise<VideoJobResult>): Promise<VideoJobResult> {
	let owner = false;
	const video = await flights().run(key, () => ((owner = true), work()));
	if (owner || video.filePath === undefined) return video;
	const own = video.filePath.replace(/(\.mp4)?$/, `-${randomUUID()}.mp4`);
	try {
		linkSync(video.filePath, own);
	} catch {
		return video; // already gone: openVideo says so, naming the task
	}
	return { ...video, filePath: own };
}

/** The clip of one job, through the store; concurrent callers with the same key share one flight (as for images). */
export async function obtainFluxVideo(job: PreparedFluxVideoJob, context: JobContext, store: Store = getStore()): Promise<VideoJobResult> {
	const flightKey = job.cacheMode === 'refresh' ? `${job.identity.key}:refresh` : job.identity.key;
	const run = () => sharedFlight(flightKey, () => obtain(store, job, context));
	let video: VideoJobResult;
	try {
		video = await run();
	} catch (error) {
		const foreignCancel = isFluxError(error) && error.kind === 'cancelled' && !context.signal.aborted;
		if (!foreignCancel) throw error;
		video = await run();
	}
	// Off joined a Reuse flight that read the store: Off never takes a stored result, it asks for its own job.
	if (job.cacheMode === 'off' && video.cached) video = await sharedFlight(`${flightKey}:off`, () => obtain(store, job, context));
	// The slot needs the clip until its node delivered it (deliveredVideo): the size bound spares it.
	if (video.storeKey !== undefined) store.inUse.use(video.storeKey);
	else if (video.filePath !== undefined) store.inUse.useFile(video.filePath);
	return video;
}

/** The slot's node handed the clip to n8n: the store's size bound may remove it from now on. */
export function deliveredVideo(result: VideoJobResult, store: Store = getStore()): void {
	if (result.storeKey !== undefined) store.inUse.done(result.storeKey);
	else if (result.filePath !== undefined) store.inUse.done(result.filePath);
}
