/**
 * The image kind of job (storedJob.ts) and of FLUX node (fluxNode.ts): an image is downloaded into the download
 * folder next to the store (or into memory when it cannot be written), kept by adopting the file into the store,
 * read back through its integrity check; Skip Error's placeholder is the white PNG.
 */
import { awaitImageFile, generateImageFile } from '../flux';
import { DEFAULT_IMAGE_MODEL } from '../models';
import { skippedErrorPng } from '../images/solidPng';
import type { JobContext } from '../pool';
import type { Store } from '../store';
import { readyDownloadDir } from './downloadFolders';
import { FLUX_ERROR_HINTS } from './fluxErrorHints';
import type { FluxNodeKind } from './fluxNode';
import { imageJobResultSize, type JobResult } from './jobResult';
import { prepareFluxImageJob, type PreparedFluxImageJob } from './prepareFluxImageJob';
import { obtainStored, type JobKind } from './storedJob';

/** The image kind of stored job. */
export const imageJobs: JobKind<PreparedFluxImageJob> = {
	kind: 'image',
	// Into the download folder next to the store, or into memory when it cannot be written; unhashed when nothing will store it (Cache Off).
	generate: async (store, job, options) => await generateImageFile(job.credentials, job.request, { ...options, downloadDir: await readyDownloadDir('image', store), hash: job.cacheMode !== 'off' }),
	awaitTask: async (store, credentials, task, options) => await awaitImageFile(credentials, task, { ...options, downloadDir: await readyDownloadDir('image', store) }),
	/** Read through its integrity check now (streamed), so a corrupt entry is a miss. */
	readStored: async (store, key, storedSince = 0) => {
		const hit = await store.results.check(key);
		if (!hit || hit.storedAt < storedSince) return undefined;
		return { outcome: 'success', mimeType: hit.mimeType, fileExtension: hit.fileExtension, taskId: hit.taskId, byteLength: hit.byteLength, storeKey: key, cached: true, fresh: true };
	},
	/** Its reference images (shared encoded copies) go: the upstream task has them now. */
	release: (job) => void (job.request.images = []),
	skipped: (failure) => ({ outcome: 'skipped_error', buffer: skippedErrorPng(), byteLength: skippedErrorPng().length, mimeType: 'image/png', fileExtension: 'png', ...failure }),
};

/** The FLUX image node (any image model): its jobs in the image pool. */
export const fluxImageNode: FluxNodeKind<PreparedFluxImageJob> = {
	jobs: imageJobs,
	prepare: prepareFluxImageJob,
	model: DEFAULT_IMAGE_MODEL,
	sizeOf: imageJobResultSize,
	errorHints: FLUX_ERROR_HINTS,
};

/** The image of one job through the store (obtainStored). */
export const obtainFluxImage = (job: PreparedFluxImageJob, context: JobContext, store?: Store): Promise<JobResult> => obtainStored(imageJobs, job, context, store);
