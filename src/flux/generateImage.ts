import type { FieldLabel } from './body';
import { DEFAULT_MAX_DOWNLOAD_BYTES, downloadImage, type DownloadedImage } from './download';
import { downloadImageFile, type ImageDownload } from './downloadFile';
import { resolveEndpoints, type FluxCredentials } from './endpoints';
import { FluxError } from './errors';
import { fluxDispatchers, singleDispatcher } from './httpAgent';
import { JobRuntime, realSleep, type AttemptCounts } from './job';
import { pollUntilReady, type ReadyResult } from './poll';
import { DEFAULT_ADAPTIVE_SCHEDULE } from './pollSchedule';
import { sharedPollLimiter, sharedReadyTimes } from './pollShared';
import { requestEndpoint, requestPayload, type FluxImageRequest, type ModelRequest, type RequestPayload } from './request';
import {
	DEFAULT_CONNECT_RETRY_POLICY,
	DEFAULT_DOWNLOAD_RETRY_POLICY,
	DEFAULT_POLL_POLICY,
	DEFAULT_SUBMIT_RETRY_POLICY,
	resolvePolicy,
} from './retryPolicy';
import { submitTask, type FluxTask } from './submit';
import { submitSteps, type SubmitStepOptions } from './submitSteps';
import type { FluxTestHooks } from './testHooks';

/** Default overall job timeout: 10 minutes. */
export const DEFAULT_JOB_TIMEOUT_MS = 600_000;
/** Default per-request headers/body-idle timeout: 60 s. A submit that times out is `maybe_submitted`. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** The longest delay a Node timer can hold (about 24.8 days); longer timeouts are clamped to it. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Options of {@link generateImage} and {@link awaitImage}. */
export interface GenerateOptions extends SubmitStepOptions {
	/** The job's cancel signal: aborts in-flight requests and sleeps; the job fails with kind `cancelled`. */
	signal?: AbortSignal;
	/** Overall job timeout (default 600 000 ms); kind `timeout`. */
	timeoutMs?: number;
	/** Download size cap (default 50 MB); kind `too_large`. */
	maxDownloadBytes?: number;
	/** Called after every HTTP attempt starts, with the running counts per step. */
	onAttempt?: (attempts: AttemptCounts) => void;
	/** Seams for tests and the benchmark only (testHooks.ts); production never sets them. */
	testHooks?: FluxTestHooks;
}

/** A fetched result with its task, timings, attempts and reported cost. */
export type Timed<I> = I & {
	taskId: string;
	/** Epoch ms: task accepted (for {@link awaitImage}: when awaiting began), seen Ready, image downloaded. */
	timings: { submittedAt: number; readyAt: number; downloadedAt: number };
	attempts: AttemptCounts;
	/** What the job cost as the API reported it (credits: the submit answer's, else the finished poll's); absent when it said nothing. */
	cost?: number;
};

/** A generated image. */
export type FluxImageResult = Timed<DownloadedImage>;

/** Options of {@link generateImageFile} / {@link awaitImageFile}: where the image file goes (an existing folder; none: memory). */
export interface ImageFileOptions extends GenerateOptions {
	downloadDir?: string;
	/** False: the file is not hashed (it has no integrity), for a result nothing will store (Cache Off). */
	hash?: boolean;
}

/** The image into a file in the options' folder, or into memory without one. */
const imageFetch = (opts: ImageFileOptions): Fetch<ImageDownload> => (rt, url) => (opts.downloadDir === undefined ? downloadImage(rt, url) : downloadImageFile(rt, url, opts.downloadDir, { hash: opts.hash }));

/** A generated image in a file (or, when the folder could not be written, in memory): see downloadFile.ts. */
export type FluxImageFileResult = Timed<ImageDownload>;

function positive(n: number | undefined, fallback: number): number {
	return typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.min(n, MAX_TIMER_MS) : fallback;
}

/** Everything a job needs, resolved from the caller's options (JobRuntime's settings). */
export type JobSettings = ReturnType<typeof settingsFor>;

/** The settings of a job of the model `endpoint`; a credential the glue layer did not validate may fail here, as `bad_request`. */
function settingsFor(creds: FluxCredentials, opts: GenerateOptions, endpoint: string, fieldLabel?: FieldLabel) {
	try {
		const endpoints = resolveEndpoints(creds, endpoint);
		const hooks = opts.testHooks ?? {};
		return {
			endpoints,
			signal: opts.signal,
			timeoutMs: positive(opts.timeoutMs, DEFAULT_JOB_TIMEOUT_MS),
			requestTimeoutMs: positive(hooks.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS),
			maxDownloadBytes: positive(opts.maxDownloadBytes, DEFAULT_MAX_DOWNLOAD_BYTES),
			poll: hooks.poll ? resolvePolicy({ ...DEFAULT_POLL_POLICY, adaptive: false }, hooks.poll) : { ...DEFAULT_POLL_POLICY },
			// The adaptive schedule's tuning and the times-to-ready it learns from (process-wide by default).
			schedule: { ...DEFAULT_ADAPTIVE_SCHEDULE, ...hooks.schedule },
			readyTimes: hooks.readyTimes ?? sharedReadyTimes(),
			// The account's poll rate cap (none: uncapped).
			pollLimiter: hooks.pollLimiter === false ? undefined : (hooks.pollLimiter ?? sharedPollLimiter(creds)),
			submitRetry: resolvePolicy(DEFAULT_SUBMIT_RETRY_POLICY, hooks.submitRetry),
			connectRetry: resolvePolicy(DEFAULT_CONNECT_RETRY_POLICY, hooks.connectRetry),
			downloadRetry: resolvePolicy(DEFAULT_DOWNLOAD_RETRY_POLICY, hooks.downloadRetry),
			dispatchers: hooks.dispatcher ? singleDispatcher(hooks.dispatcher) : fluxDispatchers(hooks.lookup),
			now: hooks.now ?? Date.now,
			random: hooks.random ?? Math.random,
			sleep: hooks.sleep ?? realSleep,
			onAttempt: opts.onAttempt,
			steps: submitSteps(opts), // the submit lifecycle's steps, in order
			fieldLabel, // a refused field's name in the editor (the request's model says)
		};
	} catch (err) {
		const why = err instanceof Error ? err.message : String(err);
		throw new FluxError('bad_request', `The FLUX API credential is unusable (${why})`, { secrets: [String(creds?.apiKey ?? '')] });
	}
}

/** Settles a job: its errors become redacted FluxErrors (with the cost the API reported, if it did), its timer and listener are released. */
async function settle<T>(rt: JobRuntime, work: Promise<T>): Promise<T> {
	try {
		return await work;
	} catch (err) {
		throw rt.toFluxError(err).withCost(rt.cost);
	} finally {
		rt.dispose();
	}
}

/** The second half of a job's result: its image or clip (and a draft's cache, `ready.draftCacheUrl`), however downloaded. */
export type Fetch<I> = (rt: JobRuntime, sampleUrl: string, ready: ReadyResult) => Promise<I>;

/** Polls until Ready, then downloads: the result of an upstream task (submitted, or awaited, now). */
async function resultOf<I>(rt: JobRuntime, task: FluxTask, learn: boolean, fetch: Fetch<I>): Promise<Timed<I>> {
	const submittedAt = rt.now();
	const { ready } = await pollUntilReady(rt, task, learn);
	const readyAt = rt.now();
	const image = await fetch(rt, ready.sampleUrl, ready);
	return {
		...image,
		taskId: task.taskId,
		timings: { submittedAt, readyAt, downloadedAt: rt.now() },
		attempts: { ...rt.attempts },
		...(rt.cost === undefined ? {} : { cost: rt.cost }),
	};
}

/**
 * Generates one image (any image model): {@link submitTask} (paid-job rule), then what {@link awaitImage}
 * does (poll until Ready, download and verify), under one job timeout. Resolves with the image,
 * or rejects with a {@link FluxError} whose `kind` says why and whose message is redacted.
 */
export function generateImage(creds: FluxCredentials, request: FluxImageRequest, opts: GenerateOptions = {}): Promise<FluxImageResult> {
	return generateTask(creds, request, requestPayload, opts, downloadImage);
}

/**
 * {@link generateImage} with the image streamed into a new file in `downloadDir` (hashed on the way; see
 * downloadFile.ts), or into memory when that folder cannot be written. The caller owns the file.
 */
export function generateImageFile(creds: FluxCredentials, request: FluxImageRequest, opts: ImageFileOptions): Promise<FluxImageFileResult> {
	return generateTask(creds, request, requestPayload, opts, imageFetch(opts));
}

/**
 * One job of any model: submit the request's payload (made by `toPayload`; one that throws rejects) to its model's
 * endpoint (paid-job rule, the submit hooks), poll until Ready, then `fetch` the result, under one job timeout. Not
 * async on purpose: once the submit is acknowledged nothing here references the payload, so large base64 inputs
 * can be garbage-collected.
 */
export function generateTask<R extends ModelRequest, I>(creds: FluxCredentials, request: R, toPayload: (request: R) => RequestPayload, opts: GenerateOptions, fetch: Fetch<I>): Promise<Timed<I>> {
	let payload: RequestPayload;
	try {
		payload = toPayload(request);
	} catch (err) {
		return Promise.reject(err);
	}
	const { model } = request;
	return runJob(
		creds,
		opts,
		requestEndpoint(request),
		(rt) => {
			const submitted = submitTask(rt, payload);
			return submitted.then((task) => resultOf(rt, task, true, fetch));
		},
		model.fieldLabel?.bind(model),
	);
}

/**
 * Starts a job of the model `endpoint` (a start that throws rejects; `cancelled` when the signal already fired:
 * nothing is sent) and settles what `work` makes of it.
 */
function runJob<I>(creds: FluxCredentials, opts: GenerateOptions, endpoint: string, work: (rt: JobRuntime) => Promise<Timed<I>>, fieldLabel?: FieldLabel): Promise<Timed<I>> {
	let rt: JobRuntime;
	try {
		if (opts.signal?.aborted) throw new FluxError('cancelled', 'FLUX job cancelled before it was submitted');
		rt = new JobRuntime(settingsFor(creds, opts, endpoint, fieldLabel));
	} catch (err) {
		return Promise.reject(err);
	}
	return settle(rt, work(rt));
}

/** An upstream task to re-attach to: its id, BFL's polling URL if one came back, its model's endpoint when known (its learned poll times). */
export type AwaitedTask = Pick<FluxTask, 'taskId' | 'pollingUrl'> & { endpoint?: string };

/**
 * The second half of {@link generateImage}: waits for an existing upstream task (polls until
 * Ready) and downloads its image, under its own job timeout. Lets a later run re-attach to a
 * task submitted earlier (`taskId`, and BFL's `pollingUrl` if one came back).
 */
export function awaitImage(creds: FluxCredentials, task: AwaitedTask, opts: GenerateOptions = {}): Promise<FluxImageResult> {
	return awaitTask(creds, task, opts, downloadImage);
}

/** {@link awaitImage} with the image streamed into a file, as {@link generateImageFile}. */
export function awaitImageFile(creds: FluxCredentials, task: AwaitedTask, opts: ImageFileOptions): Promise<FluxImageFileResult> {
	return awaitTask(creds, task, opts, imageFetch(opts));
}

/** The second half of {@link generateTask}: re-attach to an existing upstream task (of the model `task.endpoint`), poll until Ready, `fetch` the result. */
export function awaitTask<I>(creds: FluxCredentials, task: AwaitedTask, opts: GenerateOptions, fetch: Fetch<I>): Promise<Timed<I>> {
	return runJob(creds, opts, task.endpoint ?? '', (rt) => resultOf(rt, task, false, fetch));
}
