/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/flux knows nothing of n8n: it throws typed FluxError / FluxParameterError, which the node layer turns into NodeApiError / NodeOperationError. */
import { isFluxError } from './errors';
import { DetectedImageType, detectImageType } from './imageType';
import { JobRuntime, drainBody, headerValue } from './runtime';
import { backoffDelay, errorCode, parseRetryAfter } from './retryPolicy';
import { describeNetworkError } from './submit';

/** Default download size cap: 50 MB. */
export const DEFAULT_MAX_DOWNLOAD_BYTES = 50 * 1024 * 1024;
/** Redirects followed at most (each hop's scheme re-checked). */
export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** A downloaded, verified image. */
export interface DownloadedImage extends DetectedImageType {
	buffer: Buffer;
}

/** A failure worth retrying (network, truncated body, 408/429/5xx). */
class TransientDownloadError extends Error {
	constructor(
		message: string,
		readonly retryAfterMs?: number,
	) {
		super(message);
	}
}

function checkScheme(rt: JobRuntime, raw: string, what: string): URL {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		throw rt.error('download_failed', `The image ${what} is not a valid URL`);
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw rt.error('download_failed', `The image ${what} uses "${url.protocol}"; only http(s) is downloaded`);
	}
	return url;
}

function formatMB(n: number): string {
	return `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;
}

/**
 * Downloads `result.sample` without any credential: http(s) only, at most 5
 * redirects followed manually (scheme re-checked each hop), a size cap
 * (Content-Length and streamed bytes), and the body must be a PNG/JPEG/WebP by
 * magic bytes. Network errors, truncated bodies, 408/429/5xx are retried with
 * backoff within the job timeout.
 */
export async function downloadImage(rt: JobRuntime, sampleUrl: string): Promise<DownloadedImage> {
	rt.phase = 'download';
	const policy = rt.options.downloadRetry;
	const start = checkScheme(rt, sampleUrl, 'URL');
	let lastDetail = '';
	for (let attempt = 1; ; attempt++) {
		rt.throwIfAborted();
		try {
			return await downloadOnce(rt, start);
		} catch (err) {
			if (rt.signal.aborted) throw rt.abortError();
			if (!(err instanceof TransientDownloadError)) throw err;
			lastDetail = err.message;
			if (attempt >= policy.maxAttempts) {
				throw rt.error('download_failed', `Downloading the image failed after ${attempt} attempts: ${lastDetail}`);
			}
			let delay = backoffDelay(policy, attempt - 1, rt.options.random);
			if (err.retryAfterMs !== undefined) delay = Math.max(delay, Math.min(err.retryAfterMs, policy.maxRetryAfterMs));
			await rt.sleep(delay);
		}
	}
}

async function downloadOnce(rt: JobRuntime, start: URL): Promise<DownloadedImage> {
	const maxBytes = rt.options.maxDownloadBytes;
	let url = start;
	for (let hop = 0; ; hop++) {
		rt.countAttempt('download');
		let res;
		try {
			// No credential headers, ever: the signed URL authorises itself.
			res = await rt.http(url.toString(), { method: 'GET', headers: { accept: 'image/png,image/jpeg,image/webp,image/*;q=0.8' } });
		} catch (err) {
			if (rt.signal.aborted) throw rt.abortError();
			throw new TransientDownloadError(describeNetworkError(err));
		}
		const status = res.statusCode;
		if (REDIRECT_STATUSES.has(status)) {
			await drainBody(res.body);
			const location = headerValue(res.headers, 'location');
			if (!location) throw rt.error('download_failed', `The image download answered HTTP ${status} without a Location`, { statusCode: status });
			if (hop >= MAX_REDIRECTS) {
				throw rt.error('download_failed', `The image download redirected more than ${MAX_REDIRECTS} times`, { statusCode: status });
			}
			let next: string;
			try {
				next = new URL(location, url).toString();
			} catch {
				throw rt.error('download_failed', 'The image download redirected to an invalid URL', { statusCode: status });
			}
			url = checkScheme(rt, next, 'redirect');
			continue;
		}
		if (status !== 200) {
			await drainBody(res.body);
			if (rt.signal.aborted) throw rt.abortError();
			if (status === 408 || status === 429 || status >= 500) {
				throw new TransientDownloadError(`HTTP ${status}`, parseRetryAfter(headerValue(res.headers, 'retry-after'), rt.now()));
			}
			const hint = status === 403 || status === 410 ? ' (the signed image URL may have expired)' : '';
			throw rt.error('download_failed', `The image download answered HTTP ${status}${hint}`, { statusCode: status });
		}
		return readImageBody(rt, res, maxBytes);
	}
}

async function readImageBody(
	rt: JobRuntime,
	res: Awaited<ReturnType<JobRuntime['http']>>,
	maxBytes: number,
): Promise<DownloadedImage> {
	const lengthHeader = headerValue(res.headers, 'content-length');
	const declared = lengthHeader !== undefined && /^\d+$/.test(lengthHeader.trim()) ? Number(lengthHeader) : undefined;
	const tooLarge = (n: string) =>
		rt.error('too_large', `The generated image is larger than the ${formatMB(maxBytes)} download limit (${n})`);
	if (declared !== undefined && declared > maxBytes) {
		res.body.destroy();
		throw tooLarge(`Content-Length ${formatMB(declared)}`);
	}
	const chunks: Buffer[] = [];
	let total = 0;
	try {
		for await (const chunk of res.body) {
			const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
			total += buf.length;
			if (total > maxBytes) {
				res.body.destroy();
				throw tooLarge(`more than ${formatMB(maxBytes)} received`);
			}
			chunks.push(buf);
		}
	} catch (err) {
		if (isFluxError(err)) throw err;
		if (rt.signal.aborted) throw rt.abortError();
		throw new TransientDownloadError(`the image body was cut off after ${total} bytes (${errorCode(err) ?? describeNetworkError(err)})`);
	}
	if (declared !== undefined && total < declared) {
		throw new TransientDownloadError(`the image body was truncated (${total} of ${declared} bytes)`);
	}
	const buffer = Buffer.concat(chunks, total);
	const type = detectImageType(buffer);
	if (!type) {
		const ct = headerValue(res.headers, 'content-type');
		throw rt.error('not_an_image', `The downloaded file is not a PNG, JPEG or WebP image${ct ? ` (served as ${ct.slice(0, 60)})` : ''}`);
	}
	return { buffer, mimeType: type.mimeType, fileExtension: type.fileExtension };
}
