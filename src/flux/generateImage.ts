/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/flux knows nothing of n8n: it throws typed FluxError / FluxParameterError, which the node layer turns into NodeApiError / NodeOperationError. */
import { Dispatcher } from 'undici';
import { DEFAULT_MAX_DOWNLOAD_BYTES, downloadImage } from './download';
import { FluxCredentials, resolveEndpoints } from './endpoints';
import { FluxError, isFluxError } from './errors';
import { ResultExtension, ResultMimeType } from './imageType';
import { FluxImageRequest, buildRequestBody } from './request';
import { pollUntilReady } from './poll';
import {
	DEFAULT_DOWNLOAD_RETRY_POLICY,
	DEFAULT_POLL_POLICY,
	DEFAULT_SUBMIT_RETRY_POLICY,
	PollPolicy,
	RetryPolicy,
	resolvePolicy,
} from './retryPolicy';
import { AttemptCounts, JobRuntime } from './runtime';
import { submitTask } from './submit';

/** Default overall job timeout: 10 minutes. */
export const DEFAULT_JOB_TIMEOUT_MS = 600_000;
/** Default per-request headers/body-idle timeout: 60 s. A submit that times out is `maybe_submitted`. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** Options of {@link generateImage} (CONTRACTS.md, plus the optional extras marked "extra"). */
export interface GenerateOptions {
	/** The job's cancel signal: aborts in-flight requests and sleeps; the job fails with kind `cancelled`. */
	signal?: AbortSignal;
	/** Overall job timeout (default 600 000 ms); kind `timeout`. */
	timeoutMs?: number;
	/** Download size cap (default 50 MB); kind `too_large`. */
	maxDownloadBytes?: number;
	/** Called after every HTTP attempt starts, with the running counts per phase. */
	onAttempt?: (attempts: AttemptCounts) => void;
	/** Called once, just before the (paid) submit is sent. */
	onSubmitting?: () => void;
	/** Called once the submit is acknowledged (a task id came back): the request body may be released. */
	onSubmitted?: (task: { taskId: string; pollingUrl?: string }) => void;
	/** Poll backoff (defaults: 500 ms ×1.5 up to 4 s, 20 % jitter). */
	poll?: Partial<PollPolicy>;
	/** Clock for timings and deadline arithmetic (epoch ms). */
	now?: () => number;
	/** Extra: submit retry policy (429 / 503 / connection never opened). */
	submitRetry?: Partial<RetryPolicy>;
	/** Extra: download retry policy (network, truncation, 408/429/5xx). */
	downloadRetry?: Partial<RetryPolicy>;
	/** Extra: per-request headers and body-idle timeout (default 60 000 ms). */
	requestTimeoutMs?: number;
	/** Extra: jitter source (default Math.random), for reproducible benchmarks. */
	random?: () => number;
	/** Extra: an undici dispatcher instead of the shared agent (tests, benchmarks). */
	dispatcher?: Dispatcher;
}

/** A generated image (CONTRACTS.md). */
export interface FluxImageResult {
	buffer: Buffer;
	mimeType: ResultMimeType;
	fileExtension: ResultExtension;
	taskId: string;
	/** Epoch ms: task accepted, seen Ready, image downloaded. */
	timings: { submittedAt: number; readyAt: number; downloadedAt: number };
	attempts: AttemptCounts;
}

function positive(n: number | undefined, fallback: number): number {
	return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : fallback;
}

/**
 * Generates one FLUX 3 image: submit (paid-job rule), poll with backoff,
 * download and verify. Resolves with the image, or rejects with a
 * {@link FluxError} whose `kind` says why and whose message is redacted.
 */
export async function generateImage(
	creds: FluxCredentials,
	req: FluxImageRequest,
	opts: GenerateOptions = {},
): Promise<FluxImageResult> {
	const secrets = creds && typeof creds.apiKey === 'string' ? [creds.apiKey] : [];
	let endpoints;
	try {
		endpoints = resolveEndpoints(creds);
	} catch (err) {
		if (isFluxError(err)) throw err;
		throw new FluxError('bad_request', err instanceof Error ? err.message : String(err), { secrets });
	}
	if (opts.signal?.aborted) throw new FluxError('cancelled', 'FLUX job cancelled before it was submitted');

	const now = opts.now ?? Date.now;
	const rt = new JobRuntime({
		endpoints,
		signal: opts.signal,
		timeoutMs: positive(opts.timeoutMs, DEFAULT_JOB_TIMEOUT_MS),
		requestTimeoutMs: positive(opts.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS),
		maxDownloadBytes: positive(opts.maxDownloadBytes, DEFAULT_MAX_DOWNLOAD_BYTES),
		poll: resolvePolicy(DEFAULT_POLL_POLICY, opts.poll),
		submitRetry: resolvePolicy(DEFAULT_SUBMIT_RETRY_POLICY, opts.submitRetry),
		downloadRetry: resolvePolicy(DEFAULT_DOWNLOAD_RETRY_POLICY, opts.downloadRetry),
		dispatcher: opts.dispatcher,
		now,
		random: opts.random ?? Math.random,
		onAttempt: opts.onAttempt,
	});
	try {
		opts.onSubmitting?.();
		const task = await submitTask(rt, buildRequestBody(req));
		opts.onSubmitted?.({ taskId: task.taskId, pollingUrl: task.pollingUrl });
		const submittedAt = now();
		const { sampleUrl } = await pollUntilReady(rt, task);
		const readyAt = now();
		const image = await downloadImage(rt, sampleUrl);
		const downloadedAt = now();
		return {
			buffer: image.buffer,
			mimeType: image.mimeType,
			fileExtension: image.fileExtension,
			taskId: task.taskId,
			timings: { submittedAt, readyAt, downloadedAt },
			attempts: { ...rt.attempts },
		};
	} catch (err) {
		throw rt.toFluxError(err);
	} finally {
		rt.dispose();
	}
}
