/**
 * The streaming download of an image: the same rules as {@link downloadImage} (no key, public addresses, redirects,
 * retries, size cap, PNG/JPEG/WebP by magic bytes), but the body goes chunk by chunk into a file and is hashed on
 * the way (one write, one hash), never into one Buffer. A file that cannot be written falls back to memory.
 */
import { randomUUID } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import * as path from 'node:path';
import type { Dispatcher } from 'undici';
import { BodyCutOffError, formatBytes, headerValue } from './body';
import { FileBodyNotRecognisedError, FileBodyTooLargeError, FileBodyWriteError, writeBodyToFile, type WrittenBody } from './bodyFile';
import { downloadImage, downloadResult, sizeGate, type DownloadedImage, type DownloadSink } from './download';
import { detectImageType, type DetectedImageType } from './imageType';
import type { JobRuntime } from './job';
import { transient, type Transient } from './retry';
import { describeNetworkError, errorCode } from './retryPolicy';

/** The hash of image files (SRI algorithm name): sha256 is hardware-accelerated (SHA-NI) where sha512 is not. */
export const IMAGE_FILE_HASH = 'sha256';
/** Bytes {@link detectImageType} needs (WebP: "RIFF" ···· "WEBP"). */
const IMAGE_SNIFF_BYTES = 12;
const ACCEPT = 'image/png,image/jpeg,image/webp,image/*;q=0.8';

/** A downloaded, verified image in a file the caller owns (`<uuid>.<ext>`), with its integrity (`sha256-…`). */
export interface DownloadedImageFile extends DetectedImageType {
	filePath: string;
	byteLength: number;
	integrity: string;
}

/** Where an image went: a file, or (the folder could not be written) memory. */
export type ImageDownload = DownloadedImageFile | DownloadedImage;

export const isImageFile = (image: ImageDownload): image is DownloadedImageFile => 'filePath' in image;

class WriteFailed extends Error {}

const removeQuietly = (file: string) => rm(file, { force: true }).catch(() => undefined);

/**
 * Downloads `sampleUrl` into a new file in `dir` (`<uuid>.part` until complete; a failed attempt leaves no file).
 * When `dir` cannot be written (missing, read-only, disk full), the image is downloaded again into memory: a paid
 * image is never lost to a local disk.
 */
export async function downloadImageFile(rt: JobRuntime, sampleUrl: string, dir: string): Promise<ImageDownload> {
	const sink: DownloadSink<DownloadedImageFile> = { noun: 'image', accept: ACCEPT, read: (job, res) => readImageFile(job, res, dir) };
	try {
		return await downloadResult(rt, sampleUrl, sink);
	} catch (error) {
		if (!(error instanceof WriteFailed)) throw error;
		return await downloadImage(rt, sampleUrl);
	}
}

async function readImageFile(rt: JobRuntime, res: Dispatcher.ResponseData, dir: string): Promise<DownloadedImageFile | Transient> {
	const { maxBytes, declared, tooLarge } = sizeGate(rt, res, 'image');
	const partPath = path.join(dir, `${randomUUID()}.part`);
	let written: WrittenBody;
	try {
		written = await writeBodyToFile(res.body, partPath, { maxBytes, sniffBytes: IMAGE_SNIFF_BYTES, recognise: (head) => detectImageType(head) !== undefined, hash: IMAGE_FILE_HASH });
	} catch (err) {
		await removeQuietly(partPath);
		rt.throwIfAborted();
		if (err instanceof FileBodyTooLargeError) throw tooLarge(`more than ${formatBytes(maxBytes)} received`);
		if (err instanceof FileBodyNotRecognisedError) {
			const ct = headerValue(res.headers, 'content-type');
			throw rt.error('not_an_image', `The downloaded file is not a PNG, JPEG or WebP image${ct ? ` (served as ${ct.slice(0, 60)})` : ''}`);
		}
		if (err instanceof BodyCutOffError) {
			return transient('download_failed', `the image body was cut off after ${err.received} bytes (${errorCode(err.reason) ?? describeNetworkError(err.reason)})`);
		}
		if (err instanceof FileBodyWriteError) throw new WriteFailed(err.message);
		throw err;
	}
	if (declared !== undefined && written.byteLength < declared) {
		await removeQuietly(partPath);
		return transient('download_failed', `the image body was truncated (${written.byteLength} of ${declared} bytes)`);
	}
	const type = detectImageType(written.head) as DetectedImageType;
	const filePath = `${partPath.slice(0, -'.part'.length)}.${type.fileExtension}`;
	try {
		await rename(partPath, filePath); // complete: a sweep tells it from a download a killed process left behind
	} catch (error) {
		await removeQuietly(partPath);
		throw new WriteFailed((error as Error).message);
	}
	return { filePath, byteLength: written.byteLength, integrity: String(written.integrity), mimeType: type.mimeType, fileExtension: type.fileExtension };
}
