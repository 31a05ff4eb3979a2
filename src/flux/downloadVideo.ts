/**
 * The streaming download of a clip: the same rules as images (no key, public addresses, redirects, retries,
 * size cap; see download.ts), but the body goes chunk by chunk into a file, never into one Buffer.
 */
import { randomUUID } from 'node:crypto';
import { rename, rm } from 'node:fs/promises';
import * as path from 'node:path';
import type { Dispatcher } from 'undici';
import { BodyCutOffError, formatBytes, headerValue } from './body';
import { FileBodyNotRecognisedError, FileBodyTooLargeError, FileBodyWriteError, writeBodyToFile } from './bodyFile';
import { downloadResult, sizeGate, type DownloadSink } from './download';
import type { JobRuntime } from './job';
import { transient, type Transient } from './retry';
import { describeNetworkError, errorCode } from './retryPolicy';
import { isMp4, MP4_SNIFF_BYTES } from './videoType';

/** A downloaded, verified clip on disk (the caller owns the file and removes it). */
export interface DownloadedVideo {
	filePath: string;
	byteLength: number;
	mimeType: 'video/mp4';
	fileExtension: 'mp4';
}

const ACCEPT = 'video/mp4,video/*;q=0.8';

/** Downloads `sampleUrl` into a new file in `dir` (created by the caller; `<uuid>.mp4.part` until complete, then `<uuid>.mp4`); a failed attempt leaves no file. */
export async function downloadVideo(rt: JobRuntime, sampleUrl: string, dir: string): Promise<DownloadedVideo> {
	const sink: DownloadSink<DownloadedVideo> = { noun: 'video', accept: ACCEPT, read: (job, res) => readVideo(job, res, dir) };
	return await downloadResult(rt, sampleUrl, sink);
}

async function readVideo(rt: JobRuntime, res: Dispatcher.ResponseData, dir: string): Promise<DownloadedVideo | Transient> {
	const { maxBytes, declared, tooLarge } = sizeGate(rt, res, 'video');
	const filePath = path.join(dir, `${randomUUID()}.mp4.part`);
	let received: number;
	try {
		received = (await writeBodyToFile(res.body, filePath, { maxBytes, sniffBytes: MP4_SNIFF_BYTES, recognise: isMp4 })).byteLength;
	} catch (err) {
		await rm(filePath, { force: true });
		rt.throwIfAborted();
		if (err instanceof FileBodyTooLargeError) throw tooLarge(`more than ${formatBytes(maxBytes)} received`);
		if (err instanceof FileBodyNotRecognisedError) {
			const ct = headerValue(res.headers, 'content-type');
			throw rt.error('not_an_image', `The downloaded file is not an MP4 video (no ftyp box)${ct ? ` (served as ${ct.slice(0, 60)})` : ''}`);
		}
		if (err instanceof BodyCutOffError) {
			return transient('download_failed', `the video body was cut off after ${err.received} bytes (${errorCode(err.reason) ?? describeNetworkError(err.reason)})`);
		}
		throw err instanceof FileBodyWriteError ? err.cause : err; // the file could not be written (disk full, …): not retried
	}
	if (declared !== undefined && received < declared) {
		await rm(filePath, { force: true });
		return transient('download_failed', `the video body was truncated (${received} of ${declared} bytes)`);
	}
	// Complete: drop `.part`, so a sweep tells a finished clip from a download a killed process left behind.
	const done = filePath.slice(0, -'.part'.length);
	await rename(filePath, done);
	return { filePath: done, byteLength: received, mimeType: 'video/mp4', fileExtension: 'mp4' };
}
