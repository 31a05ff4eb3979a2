/**
 * FLUX 3 Video on the same machinery as images: one JobRuntime (timeout, cancel, attempts, redaction), the same
 * submitTask (paid-job rule, hooks), pollUntilReady (poll schedule) and GenerateOptions; only the endpoint, the
 * body and the download (streamed to a file, MP4 by its ftyp box) differ.
 */
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { DEFAULT_REQUEST_TIMEOUT_MS, settingsFor, settle, type GenerateOptions } from './generateImage';
import { modelSubmitUrl, type FluxCredentials, type FluxEndpoints } from './endpoints';
import { FluxError } from './errors';
import { JobRuntime, type AttemptCounts } from './job';
import { pollUntilReady } from './poll';
import { submitTask, type FluxTask } from './submit';
import { downloadVideo, type DownloadedVideo } from './downloadVideo';
import { DEFAULT_VIDEO_TIMEOUT_MINUTES, VIDEO_MODEL } from './videoOptions';
import { videoRequestPayload, type FluxVideoRequest } from './videoRequest';

export { DEFAULT_REQUEST_TIMEOUT_MS };

/** Default clip download cap: 1 GB (clips run to hundreds of MB; they stream to disk, not memory). */
export const DEFAULT_MAX_VIDEO_BYTES = 1024 * 1024 * 1024;
/** Default job timeout of a clip: 30 min (generation takes minutes; the image default is 10). */
export const DEFAULT_VIDEO_JOB_TIMEOUT_MS = DEFAULT_VIDEO_TIMEOUT_MINUTES * 60_000;

/** {@link GenerateOptions}, plus where the clip is written while it downloads. */
export interface VideoOptions extends GenerateOptions {
	/** Folder for the downloaded file (created if missing; default the OS temp folder). The caller owns the file. */
	downloadDir?: string;
}

/** A generated clip, on disk. */
export interface FluxVideoResult extends DownloadedVideo {
	taskId: string;
	timings: { submittedAt: number; readyAt: number; downloadedAt: number };
	attempts: AttemptCounts;
	/** What the clip cost as the API reported it (credits; FLUX 3 Video says so on the finished poll); absent when it said nothing. */
	cost?: number;
}

/** The submit URL of the video model in the credential's style (`/bfl/v1/flux-3-video` or `/v1/flux-3-video`). */
export function videoSubmitUrl(endpoints: FluxEndpoints): string {
	return modelSubmitUrl(endpoints, VIDEO_MODEL);
}

/** A caller's options with the video defaults where it gave none: the clip-sized timeout and download cap. */
export function videoJobDefaults(opts: VideoOptions): VideoOptions {
	return { ...opts, timeoutMs: opts.timeoutMs ?? DEFAULT_VIDEO_JOB_TIMEOUT_MS, maxDownloadBytes: opts.maxDownloadBytes ?? DEFAULT_MAX_VIDEO_BYTES };
}

function startVideoJob(creds: FluxCredentials, opts: VideoOptions): JobRuntime {
	if (opts.signal?.aborted) throw new FluxError('cancelled', 'FLUX job cancelled before it was submitted');
	const settings = settingsFor(creds, videoJobDefaults(opts));
	return new JobRuntime({ ...settings, endpoints: { ...settings.endpoints, submitUrl: videoSubmitUrl(settings.endpoints) } });
}

async function videoOf(rt: JobRuntime, task: FluxTask, submittedAt: number, dir: string): Promise<FluxVideoResult> {
	const { sampleUrl } = await pollUntilReady(rt, task, rt.submitRoundTripMs !== undefined); // learns when this job submitted the task
	const readyAt = rt.now();
	await mkdir(dir, { recursive: true, mode: 0o700 });
	const video = await downloadVideo(rt, sampleUrl, dir);
	const cost = rt.cost === undefined ? {} : { cost: rt.cost };
	return { ...video, taskId: task.taskId, timings: { submittedAt, readyAt, downloadedAt: rt.now() }, attempts: { ...rt.attempts }, ...cost };
}

/**
 * Generates one FLUX 3 clip: submit (paid-job rule), poll until Ready, stream the MP4 into a file in
 * `downloadDir`, under one job timeout. Rejects with a redacted FluxError. Not async on purpose: once the submit
 * is acknowledged nothing here references `request`, so a large base64 start video can be garbage-collected.
 */
export function generateVideo(creds: FluxCredentials, request: FluxVideoRequest, opts: VideoOptions = {}): Promise<FluxVideoResult> {
	let rt: JobRuntime;
	try {
		rt = startVideoJob(creds, opts);
	} catch (err) {
		return Promise.reject(err);
	}
	const dir = opts.downloadDir ?? tmpdir();
	const submitted = submitTask(rt, videoRequestPayload(request), { beforeSend: opts.beforeSend, onSubmitting: opts.onSubmitting, onSubmitted: opts.onSubmitted, onNotCreated: opts.onNotCreated });
	return settle(rt, submitted.then((task) => videoOf(rt, task, rt.now(), dir)));
}

/** The second half of {@link generateVideo}: re-attach to an upstream task, poll until Ready, download the clip. */
export function awaitVideo(creds: FluxCredentials, task: { taskId: string; pollingUrl?: string }, opts: VideoOptions = {}): Promise<FluxVideoResult> {
	let rt: JobRuntime;
	try {
		rt = startVideoJob(creds, opts);
	} catch (err) {
		return Promise.reject(err);
	}
	const copy: FluxTask = task.pollingUrl ? { taskId: task.taskId, pollingUrl: task.pollingUrl } : { taskId: task.taskId };
	rt.taskId = copy.taskId;
	rt.phase = 'poll';
	return settle(rt, videoOf(rt, copy, rt.now(), opts.downloadDir ?? tmpdir()));
}
