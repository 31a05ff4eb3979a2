/**
 * The one streaming download of a result into a file: the rules of download.ts (no key, public addresses,
 * redirects, retries, size cap), the body chunk by chunk into `<uuid>.part` in the caller's folder, hashed on the
 * way (one write, one hash), its type proven by its first bytes, then renamed `<uuid>.<ext>`; a failed attempt
 * leaves no file. Images (PNG/JPEG/WebP) fall back to memory when the folder cannot be written; clips (MP4) and
 * draft caches (opaque, ≤ 128 MB) cannot.
 */
import { randomUUID } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import * as path from 'node:path';
import type { Dispatcher } from 'undici';
import { BodyCutOffError, formatBytes } from './body';
import { FileBodyNotRecognisedError, FileBodyTooLargeError, FileBodyWriteError, writeBodyToFile, type WrittenBody } from './bodyFile';
import { cutOff, downloadImage, downloadResult, IMAGE, notRecognised, sizeGate, truncated, type DownloadedImage, type FileKind } from './download';
import type { DetectedImageType } from './imageType';
import type { JobRuntime } from './job';
import type { Transient } from './retry';
import { isMp4, MP4_SNIFF_BYTES } from './videoType';

/** The hash of downloaded files (SRI algorithm name): sha256 is hardware-accelerated (SHA-NI) where sha512 is not. */
export const IMAGE_FILE_HASH = 'sha256';

/** A downloaded, verified file the caller owns, with its type and integrity (`sha256-…`). */
export interface DownloadedFile<M extends string = string, E extends string = string> {
	filePath: string;
	byteLength: number;
	/** Absent when it was downloaded unhashed (`hash: false`: a result nothing will store). */
	integrity?: string;
	mimeType: M;
	fileExtension: E;
}

/** A downloaded, verified image in a file (`<uuid>.<ext>`). */
export type DownloadedImageFile = DownloadedFile & DetectedImageType;
/** A downloaded, verified clip on disk (`<uuid>.mp4`). */
export type DownloadedVideo = DownloadedFile<'video/mp4', 'mp4'>;

/** Where an image went: a file, or (the folder could not be written) memory. */
export type ImageDownload = DownloadedImageFile | DownloadedImage;

export const isImageFile = (image: ImageDownload): image is DownloadedImageFile => 'filePath' in image;

export const VIDEO: FileKind<'video/mp4', 'mp4'> = {
	noun: 'video',
	accept: 'video/mp4,video/*;q=0.8',
	sniffBytes: MP4_SNIFF_BYTES,
	detect: (head) => (isMp4(head) ? { mimeType: 'video/mp4', fileExtension: 'mp4' } : undefined),
	notRecognised: 'The downloaded file is not an MP4 video (no ftyp box)',
};

/** BFL's cap on a draft cache (FLUX_API.md: ≤ 128 MB), whatever the job's clip cap. */
export const MAX_DRAFT_CACHE_BYTES = 128 * 1024 * 1024;

/** A draft's cache (a video model's `draft: true`): opaque bytes (none may be empty), re-sent as they are to enhance the draft; its own 128 MB cap. */
export const DRAFT_CACHE: FileKind<'application/octet-stream', 'bin'> = {
	noun: 'draft cache',
	accept: 'application/octet-stream,*/*;q=0.8',
	sniffBytes: 1,
	detect: (head) => (head.length > 0 ? { mimeType: 'application/octet-stream', fileExtension: 'bin' } : undefined),
	notRecognised: 'The downloaded draft cache is empty',
	maxBytes: MAX_DRAFT_CACHE_BYTES,
};

/** A downloaded draft cache on disk (`<uuid>.bin`). */
export type DownloadedDraftCache = DownloadedFile<'application/octet-stream', 'bin'>;

const removeQuietly = (file: string) => rm(file, { force: true }).catch(() => undefined);

/**
 * An image into a file in `dir`; when `dir` cannot be written, downloaded again into memory: a paid image is never
 * lost to a local disk. `hash: false` leaves the file unhashed (no integrity): for a result nothing will store.
 */
export async function downloadImageFile(rt: JobRuntime, sampleUrl: string, dir: string, { hash = true }: { hash?: boolean } = {}): Promise<ImageDownload> {
	try {
		return await downloadResult(rt, sampleUrl, IMAGE, (job, res) => readFile(job, res, dir, IMAGE, hash));
	} catch (error) {
		if (!(error instanceof FileBodyWriteError)) throw error;
		return await downloadImage(rt, sampleUrl);
	}
}

/** A clip or a draft's cache ({@link VIDEO}, {@link DRAFT_CACHE}) into a file in `dir` (created by the caller); a folder that cannot be written fails the job with its reason. */
export async function downloadToDisk<M extends string, E extends string>(rt: JobRuntime, url: string, dir: string, kind: FileKind<M, E>): Promise<DownloadedFile<M, E>> {
	try {
		return await downloadResult(rt, url, kind, (job, res) => readFile(job, res, dir, kind, true));
	} catch (error) {
		throw error instanceof FileBodyWriteError ? error.cause : error;
	}
}

/**
 * A 200 response's body into a new file of `kind` in `dir` (see the file's opening comment), hashed unless `hash` is
 * false; a folder that cannot be written (missing, read-only, disk full) is a FileBodyWriteError, not retried.
 */
async function readFile<M extends string, E extends string>(rt: JobRuntime, res: Dispatcher.ResponseData, dir: string, kind: FileKind<M, E>, hash: boolean): Promise<DownloadedFile<M, E> | Transient> {
	const { maxBytes, declared, tooLarge } = sizeGate(rt, res, kind.noun, kind.maxBytes);
	const partPath = path.join(dir, `${randomUUID()}.part`);
	let written: WrittenBody;
	try {
		const rules = { maxBytes, sniffBytes: kind.sniffBytes, recognise: (head: Uint8Array) => kind.detect(head) !== undefined, hash: hash ? IMAGE_FILE_HASH : undefined };
		written = await writeBodyToFile(res.body, partPath, rules);
	} catch (err) {
		await removeQuietly(partPath);
		rt.throwIfAborted();
		if (err instanceof FileBodyTooLargeError) throw tooLarge(`more than ${formatBytes(maxBytes)} received`);
		if (err instanceof FileBodyNotRecognisedError) throw notRecognised(rt, res, kind);
		if (err instanceof BodyCutOffError) return cutOff(kind.noun, err);
		throw err;
	}
	if (declared !== undefined && written.byteLength < declared) {
		await removeQuietly(partPath);
		return truncated(kind.noun, written.byteLength, declared);
	}
	const type = kind.detect(written.head) as { mimeType: M; fileExtension: E };
	const filePath = `${partPath.slice(0, -'.part'.length)}.${type.fileExtension}`;
	try {
		await rename(partPath, filePath); // complete: a sweep tells it from a download a killed process left behind
	} catch (error) {
		await removeQuietly(partPath);
		throw new FileBodyWriteError(error);
	}
	return { filePath, byteLength: written.byteLength, ...(written.integrity === undefined ? {} : { integrity: written.integrity }), mimeType: type.mimeType, fileExtension: type.fileExtension };
}
