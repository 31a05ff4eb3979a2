/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/flux knows nothing of n8n: it throws typed FluxError. */
import { DEFAULT_MAX_DOWNLOAD_BYTES, downloadImage } from './download';
import { type FluxCredentials, resolveEndpoints } from './endpoints';
import { FluxError, isFluxError } from './errors';
import { DEFAULT_JOB_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, type FluxImageResult, type GenerateOptions } from './generateImage';
import { pollUntilReady } from './poll';
import { DEFAULT_DOWNLOAD_RETRY_POLICY, DEFAULT_POLL_POLICY, DEFAULT_SUBMIT_RETRY_POLICY, resolvePolicy } from './retryPolicy';
import { JobRuntime } from './runtime';

/** Options of {@link awaitImage}: those of generateImage without the submit hooks. */
export type AwaitImageOptions = Omit<GenerateOptions, 'onSubmitting' | 'onSubmitted' | 'submitRetry'>;

function positive(n: number | undefined, fallback: number): number {
	return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : fallback;
}

/**
 * Polls an existing upstream task until Ready, then downloads and verifies its image (no submit: nothing is
 * paid). An unknown or expired task rejects with kind `task_not_found`. Same result and errors as generateImage.
 */
export async function awaitImage(
	creds: FluxCredentials,
	task: { taskId: string; pollingUrl?: string },
	opts: AwaitImageOptions = {},
): Promise<FluxImageResult> {
	const secrets = creds && typeof creds.apiKey === 'string' ? [creds.apiKey] : [];
	let endpoints;
	try {
		endpoints = resolveEndpoints(creds);
	} catch (err) {
		if (isFluxError(err)) throw err;
		throw new FluxError('bad_request', err instanceof Error ? err.message : String(err), { secrets });
	}
	if (opts.signal?.aborted) throw new FluxError('cancelled', 'FLUX job cancelled before it was polled');
	const now = opts.now ?? Date.now;
	const rt = new JobRuntime({
		endpoints,
		signal: opts.signal,
		timeoutMs: positive(opts.timeoutMs, DEFAULT_JOB_TIMEOUT_MS),
		requestTimeoutMs: positive(opts.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS),
		maxDownloadBytes: positive(opts.maxDownloadBytes, DEFAULT_MAX_DOWNLOAD_BYTES),
		poll: resolvePolicy(DEFAULT_POLL_POLICY, opts.poll),
		submitRetry: resolvePolicy(DEFAULT_SUBMIT_RETRY_POLICY, undefined),
		downloadRetry: resolvePolicy(DEFAULT_DOWNLOAD_RETRY_POLICY, opts.downloadRetry),
		dispatcher: opts.dispatcher,
		now,
		random: opts.random ?? Math.random,
		onAttempt: opts.onAttempt,
	});
	try {
		const submittedAt = now();
		const { sampleUrl } = await pollUntilReady(rt, task);
		const readyAt = now();
		const image = await downloadImage(rt, sampleUrl);
		return {
			buffer: image.buffer,
			mimeType: image.mimeType,
			fileExtension: image.fileExtension,
			taskId: task.taskId,
			timings: { submittedAt, readyAt, downloadedAt: now() },
			attempts: { ...rt.attempts },
		};
	} catch (err) {
		throw rt.toFluxError(err);
	} finally {
		rt.dispose();
	}
}
