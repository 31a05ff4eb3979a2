/**
 * The video kind of job (storedJob.ts): the clip streams into the download folder (hashed on the way), then
 * becomes the store's content (adoptFile: a hard link, as images); a caller that joined another's flight gets a hard link of a
 * clip left as a file; Skip Error has no placeholder clip.
 */
import { randomUUID } from 'node:crypto';
import { linkSync } from 'node:fs';

import { awaitVideo, generateVideo, type FluxVideoResult } from '../flux';
import { VIDEO_MODEL } from '../flux/videoOptions';
import { NOT_KEPT } from '../fluxN8n/ownedJob';
import { delivered, obtainStored, runPooledStoredJob, runStoredJob, type JobKind } from '../fluxN8n/storedJob';
import type { JobContext } from '../pool';
import type { Store } from '../store';
import type { PreparedFluxVideoJob } from './prepareFluxVideoJob';
import { sweepVideoDownloads, videoDownloadDir, VIDEO_MIME_TYPE, type VideoJobResult } from './videoJobResult';

/** The job lets go of its base64 media: the upstream task has them now. */
export function releaseVideoMedia(job: PreparedFluxVideoJob): void {
	delete job.request.keyframes;
	delete job.request.startVideo;
}

/** Keeps the downloaded clip in the store (unless Cache is Off), advances the journal; the clip is never lost. */
export async function keepVideo(store: Store, key: string, cacheMode: string, video: FluxVideoResult): Promise<VideoJobResult> {
	const base = { outcome: 'success' as const, taskId: video.taskId, byteLength: video.byteLength, cached: false, cost: video.cost ?? null };
	const meta = { mimeType: VIDEO_MIME_TYPE, fileExtension: 'mp4', taskId: video.taskId };
	// The downloaded clip (hashed while it streamed in) becomes the store's content, as an image does: no copy.
	const put = cacheMode !== 'off' && (await store.results.adoptFile(key, video, meta));
	if (put && (await store.journal.stored(key))) return { ...base, storeKey: key };
	if (cacheMode === 'off' && (await store.results.has(key)) && (await store.journal.stored(key))) return { ...base, filePath: video.filePath };
	await store.journal.failed(key, cacheMode === 'off' ? 'delivered; not kept (Cache: Off)' : 'delivered; the result store could not keep it', [], NOT_KEPT);
	// Adopted but not journaled: the download file is the store's now, so the store key reads the bytes.
	return put ? { ...base, storeKey: key } : { ...base, filePath: video.filePath };
}

/**
 * A clip left as a file (Cache Off) belongs to the flight's owner; each caller that joined gets a hard link of its
 * own (made synchronously as the flight settles, before the owner can remove its file), so every caller may remove
 * its file once delivered.
 */
function ownCopy(video: VideoJobResult): VideoJobResult {
	if (video.filePath === undefined) return video;
	const own = video.filePath.replace(/(\.mp4)?$/, `-${randomUUID()}.mp4`);
	try {
		linkSync(video.filePath, own);
	} catch {
		return video; // already gone: openVideo says so, naming the task
	}
	return { ...video, filePath: own };
}

/** The video kind of stored job. */
export const videoJobs: JobKind<PreparedFluxVideoJob, VideoJobResult, FluxVideoResult> = {
	kind: 'video',
	flights: 'videoFlights',
	model: () => VIDEO_MODEL,
	generate: async (_store, job, options) => await generateVideo(job.credentials, job.request, { ...options, downloadDir: videoDownloadDir() }),
	awaitTask: async (_store, credentials, task, options) => await awaitVideo(credentials, task, { ...options, downloadDir: videoDownloadDir() }),
	keep: keepVideo,
	/** Its entry and content file are there (its bytes are checked as the collector streams them). */
	readStored: async (store, key, storedSince = 0) => {
		const meta = await store.results.present(key);
		if (!meta || meta.storedAt < storedSince) return undefined;
		return { outcome: 'success', storeKey: key, taskId: meta.taskId, byteLength: meta.byteLength, cached: true };
	},
	release: releaseVideoMedia,
	beforeObtain: () => void sweepVideoDownloads(),
	joined: ownCopy,
	skipped: (failure) => ({ outcome: 'skipped_error', ...failure }),
};

/** The clip of one job through the store (obtainStored). */
export const obtainFluxVideo = (job: PreparedFluxVideoJob, context: JobContext, store?: Store): Promise<VideoJobResult> => obtainStored(videoJobs, job, context, store);
/** The serial node's run of one job; Skip Error gives `skipped_error` with no clip (runStoredJob). */
export const runFluxVideoJob = (job: PreparedFluxVideoJob, context: JobContext): Promise<VideoJobResult> => runStoredJob(videoJobs, job, context);
/** The twin's run (runPooledStoredJob). */
export const runPooledFluxVideoJob = (job: PreparedFluxVideoJob, context: JobContext): Promise<VideoJobResult> => runPooledStoredJob(videoJobs, job, context);
/** The slot's node handed the clip to n8n (delivered). */
export const deliveredVideo = delivered;
