/**
 * Clip jobs (any video model) on the one job machinery (generateTask / awaitTask in generateImage.ts): only the
 * clip-sized defaults and the download (streamed to a file, MP4 by its ftyp box; a draft's cache beside it) differ.
 */
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { awaitTask, generateTask, type AwaitedTask, type GenerateOptions, type Timed } from './generateImage';
import type { FluxCredentials } from './endpoints';
import type { JobRuntime } from './job';
import { downloadToDisk, DRAFT_CACHE, VIDEO, type DownloadedDraftCache, type DownloadedVideo } from './downloadFile';
import type { ReadyResult } from './poll';
import { modelRequestPayload, type ModelRequest } from './request';

/** Default clip download cap: 1 GB (clips run to hundreds of MB; they stream to disk, not memory). */
export const DEFAULT_MAX_VIDEO_BYTES = 1024 * 1024 * 1024;
/** Default job timeout of a clip: 30 min (generation takes minutes; the image default is 10). */
export const DEFAULT_VIDEO_JOB_TIMEOUT_MS = 30 * 60_000;

/** {@link GenerateOptions}, plus where the clip is written while it downloads. */
export interface VideoOptions extends GenerateOptions {
	/** Folder for the downloaded file (created if missing; default the OS temp folder). The caller owns the file. */
	downloadDir?: string;
}

/** A downloaded clip, and a draft's cache when the answer carried one (`draft: true`). */
export type VideoDownload = DownloadedVideo & { draftCache?: DownloadedDraftCache };

/** A generated clip (and a draft's cache), on disk, with its task, timings, attempts and reported cost (on the finished poll). */
export type FluxVideoResult = Timed<VideoDownload>;

/** A caller's options with the video defaults where it gave none: the clip-sized timeout and download cap. */
export function videoJobDefaults(opts: VideoOptions): VideoOptions {
	return { ...opts, timeoutMs: opts.timeoutMs ?? DEFAULT_VIDEO_JOB_TIMEOUT_MS, maxDownloadBytes: opts.maxDownloadBytes ?? DEFAULT_MAX_VIDEO_BYTES };
}

/**
 * Streams the clip into a new file in `dir` (created if missing), and a draft's cache beside it at the same time
 * (both URLs expire); when either fails, the other's file is removed and the job fails with the first failure.
 */
const fetchVideo = (dir: string) => async (rt: JobRuntime, sampleUrl: string, ready: ReadyResult): Promise<VideoDownload> => {
	await mkdir(dir, { recursive: true, mode: 0o700 });
	const cacheUrl = ready.draftCacheUrl;
	if (cacheUrl === undefined) return await downloadToDisk(rt, sampleUrl, dir, VIDEO);
	const [clip, cache] = await Promise.allSettled([downloadToDisk(rt, sampleUrl, dir, VIDEO), downloadToDisk(rt, cacheUrl, dir, DRAFT_CACHE)]);
	if (clip.status === 'fulfilled' && cache.status === 'fulfilled') return { ...clip.value, draftCache: cache.value };
	for (const done of [clip, cache]) if (done.status === 'fulfilled') await rm(done.value.filePath, { force: true });
	throw (clip.status === 'rejected' ? clip : (cache as PromiseRejectedResult)).reason;
};

/**
 * Generates one clip: submit (paid-job rule), poll until Ready, stream the MP4 into a file in
 * `downloadDir`, under one job timeout (generateTask). Rejects with a redacted FluxError.
 */
export function generateVideo(creds: FluxCredentials, request: ModelRequest, opts: VideoOptions = {}): Promise<FluxVideoResult> {
	return generateTask(creds, request, modelRequestPayload, videoJobDefaults(opts), fetchVideo(opts.downloadDir ?? tmpdir()));
}

/** The second half of {@link generateVideo}: re-attach to an upstream task, poll until Ready, download the clip. */
export function awaitVideo(creds: FluxCredentials, task: AwaitedTask, opts: VideoOptions = {}): Promise<FluxVideoResult> {
	return awaitTask(creds, task, videoJobDefaults(opts), fetchVideo(opts.downloadDir ?? tmpdir()));
}
