/**
 * The video kind of job (storedJob.ts) and of FLUX node (fluxNode.ts): the clip (and a draft's cache) streams into
 * the download folder (hashed on the way), then becomes the store's content (adopted: a hard link, as images); Skip
 * Error has no placeholder clip.
 */
import { awaitVideo, generateVideo } from '../flux';
import { flux3Video } from '../models';
import { downloadDir } from '../fluxN8n/downloadFolders';
import type { FluxNodeKind } from '../fluxN8n/fluxNode';
import { DRAFT_CACHE, type JobResult } from '../fluxN8n/jobResult';
import { obtainStored, type JobKind } from '../fluxN8n/storedJob';
import type { JobContext } from '../pool';
import { partKey, type Store } from '../store';
import { prepareFluxVideoJob, type PreparedFluxVideoJob } from './prepareFluxVideoJob';
import { FLUX_VIDEO_ERROR_HINTS } from '../fluxN8n/fluxErrorHints';

/** The video kind of stored job. */
export const videoJobs: JobKind<PreparedFluxVideoJob> = {
	kind: 'video',
	generate: async (store, job, options) => await generateVideo(job.credentials, job.request, { ...options, downloadDir: downloadDir('video', store) }),
	awaitTask: async (store, credentials, task, options) => await awaitVideo(credentials, task, { ...options, downloadDir: downloadDir('video', store) }),
	/** Its entry and content file are there, and a draft's cache too (their bytes are checked as the node streams them). */
	readStored: async (store, key, storedSince = 0) => {
		const meta = await store.results.present(key);
		if (!meta || meta.storedAt < storedSince) return undefined;
		const clip: JobResult = { outcome: 'success', storeKey: key, mimeType: meta.mimeType, fileExtension: meta.fileExtension, taskId: meta.taskId, byteLength: meta.byteLength, cached: true };
		if (!meta.parts?.includes(DRAFT_CACHE)) return clip;
		const cacheKey = partKey(key, DRAFT_CACHE);
		const cache = await store.results.present(cacheKey);
		return cache && { ...clip, draft: true, draftCache: { storeKey: cacheKey, byteLength: cache.byteLength } };
	},
	/** Its base64 media go: the upstream task has them now. */
	release: (job) => {
		delete job.request.keyframes;
		delete job.request.startVideo;
		delete job.request.draftCache;
	},
	skipped: (failure) => ({ outcome: 'skipped_error', mimeType: flux3Video.mediaType, fileExtension: 'mp4', ...failure }),
};

/** The FLUX 3 Video node: its jobs in the video pool; a clip on disk weighs nothing against the pool's bound. */
export const fluxVideoNode: FluxNodeKind<PreparedFluxVideoJob> = {
	jobs: videoJobs,
	prepare: prepareFluxVideoJob,
	model: flux3Video.id,
	sizeOf: () => 0,
	errorHints: FLUX_VIDEO_ERROR_HINTS,
};

/** The clip of one job through the store (obtainStored). */
export const obtainFluxVideo = (job: PreparedFluxVideoJob, context: JobContext, store?: Store): Promise<JobResult> => obtainStored(videoJobs, job, context, store);
