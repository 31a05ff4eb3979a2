/**
 * The image kind of job (storedJob.ts): an image is downloaded into the download folder next to the store (or
 * into memory when it cannot be written), kept by adopting the file into the store, read back through its
 * integrity check; Skip Error's placeholder is the white PNG.
 */
import { awaitImage, awaitImageFile, generateImage, generateImageFile, isImageFile, type FluxCredentials, type FluxImageFileResult, type GenerateOptions } from '../flux';
import { requestEndpoint } from '../flux/request';
import { skippedErrorPng } from '../images/solidPng';
import type { JobContext } from '../pool';
import type { Store } from '../store';
import { readyImageDownloadDir, sweepImageDownloadsNowAndThen, type ImageJobResult } from './imageJobResult';
import { NOT_KEPT } from './ownedJob';
import type { PreparedFluxImageJob } from './prepareFluxImageJob';
import { delivered, obtainStored, runPooledStoredJob, runStoredJob, type JobKind, type UpstreamTask } from './storedJob';

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

/** {@link awaitImageFile} into the download folder, or {@link awaitImage} into memory when it cannot be written. */
export async function awaitJobImage(store: Store, credentials: FluxCredentials, task: UpstreamTask, options: GenerateOptions): Promise<FluxImageFileResult> {
	const { downloadDir, ...rest } = await imageFileOptions(store, options);
	return downloadDir === undefined ? await awaitImage(credentials, task, rest) : await awaitImageFile(credentials, task, { ...rest, downloadDir });
}

/** The image kind of stored job. */
export const imageJobs: JobKind<PreparedFluxImageJob, ImageJobResult, FluxImageFileResult> = {
	kind: 'image',
	flights: 'imageFlights',
	model: (job) => requestEndpoint(job.request),
	generate: async (store, job, options) => {
		const { downloadDir, ...rest } = await imageFileOptions(store, options);
		return downloadDir === undefined ? await generateImage(job.credentials, job.request, rest) : await generateImageFile(job.credentials, job.request, { ...rest, downloadDir });
	},
	awaitTask: awaitJobImage,
	keep: keepImage,
	/** Read through its integrity check now (streamed), so a corrupt entry is a miss. */
	readStored: async (store, key, storedSince = 0) => {
		const hit = await store.results.check(key);
		if (!hit || hit.storedAt < storedSince) return undefined;
		return { outcome: 'success', mimeType: hit.mimeType, fileExtension: hit.fileExtension, taskId: hit.taskId, byteLength: hit.byteLength, storeKey: key, cached: true, fresh: true };
	},
	release: releaseReferenceImages,
	skipped: (failure) => ({ outcome: 'skipped_error', buffer: skippedErrorPng(), byteLength: skippedErrorPng().length, mimeType: 'image/png', fileExtension: 'png', ...failure }),
};

/** The image of one job through the store (obtainStored). */
export const obtainFluxImage = (job: PreparedFluxImageJob, context: JobContext, store?: Store): Promise<ImageJobResult> => obtainStored(imageJobs, job, context, store);
/** The serial node's run of one job; Skip Error gives the white placeholder (runStoredJob). */
export const runFluxImageJob = (job: PreparedFluxImageJob, context: JobContext): Promise<ImageJobResult> => runStoredJob(imageJobs, job, context);
/** The twin's run (runPooledStoredJob). */
export const runPooledFluxImageJob = (job: PreparedFluxImageJob, context: JobContext): Promise<ImageJobResult> => runPooledStoredJob(imageJobs, job, context);
/** The slot's node handed the image to n8n (delivered). */
export const deliveredImage = delivered;
