import { isIP } from 'node:net';
import type { Dispatcher } from 'undici';
import { FORBIDDEN_ADDRESS_CODE, ForbiddenAddressError, isLocalHost, nonPublicAddress } from './addresses';
import { BodyCutOffError, BodyTooLargeError, discardBody, drainBody, formatBytes, headerValue, readBody } from './body';
import { DetectedImageType, detectImageType } from './imageType';
import type { JobRuntime } from './job';
import { transient, withRetries, type Transient } from './retry';
import { describeNetworkError, errorCode } from './retryPolicy';
import { failedStatus } from './statusTable';

/** Default download size cap: 50 MB. */
export const DEFAULT_MAX_DOWNLOAD_BYTES = 50 * 1024 * 1024;
/** Redirects followed at most (each hop's scheme and host re-checked). */
export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const whyPublicOnly = (noun: string) =>
	`${noun}s are only downloaded from public addresses (unless the Base URL of the FLUX API credential is itself on a local one), so that an API answer cannot make n8n reach its own network`;

/** A downloaded, verified image. */
export interface DownloadedImage extends DetectedImageType {
	buffer: Buffer;
}

/** What kind of file is downloaded: its noun, Accept header, how its first bytes prove its type, and what else is refused. */
export interface FileKind<M extends string, E extends string> {
	noun: string;
	accept: string;
	sniffBytes: number;
	detect(head: Uint8Array): { mimeType: M; fileExtension: E } | undefined;
	/** The `not_an_image` message when the first bytes are not of this kind. */
	notRecognised: string;
	/** Its own size cap (else the job's). */
	maxBytes?: number;
}

type Kind = Pick<FileKind<string, string>, 'noun' | 'accept'>;
/** Consumes a 200 response's body (into memory, a file, …): its result, or a Transient. */
type Sink<T> = (rt: JobRuntime, res: Dispatcher.ResponseData) => Promise<T | Transient>;

export const IMAGE: FileKind<DetectedImageType['mimeType'], DetectedImageType['fileExtension']> = {
	noun: 'image',
	accept: 'image/png,image/jpeg,image/webp,image/*;q=0.8',
	sniffBytes: 12, // WebP: "RIFF" ···· "WEBP"
	detect: detectImageType,
	notRecognised: 'The downloaded file is not a PNG, JPEG or WebP image',
};

/**
 * Downloads `result.sample` without any credential: http(s) only, public addresses only (unless
 * the Base URL is local; literal hosts checked here, resolved addresses while connecting), at
 * most 5 redirects followed manually (each hop re-checked), a size cap (Content-Length and
 * streamed bytes), and the body must be a PNG/JPEG/WebP by magic bytes. Network errors,
 * truncated bodies and 408/429/5xx are retried with backoff within the job timeout.
 */
export async function downloadImage(rt: JobRuntime, sampleUrl: string): Promise<DownloadedImage> {
	return await downloadResult(rt, sampleUrl, IMAGE, readImage);
}

/** {@link downloadImage}'s rules (no key, public addresses, redirects, retries) for a `kind`, a 200 response's body going to `read`. */
export async function downloadResult<T>(rt: JobRuntime, sampleUrl: string, kind: Kind, read: Sink<T>): Promise<T> {
	rt.phase = 'download';
	const allowLocal = isLocalHost(rt.endpoints.base.hostname);
	const start = checkTarget(rt, sampleUrl, kind.noun, 'URL', allowLocal);
	return withRetries(rt, {
		policy: rt.settings.downloadRetry,
		attempt: () => downloadOnce(rt, start, allowLocal, kind, read),
		giveUp: (failure, reason) =>
			rt.error('download_failed', `Downloading the ${kind.noun} failed after ${reason.why === 'attempts' ? reason.attempts : 'several'} attempts: ${failure.detail}`),
	});
}

/** Refuses non-http(s) schemes, and local hosts unless allowed (`noun` `part`: e.g. "image" "URL"). */
function checkTarget(rt: JobRuntime, raw: string, noun: string, part: string, allowLocal: boolean): URL {
	const what = `${noun} ${part}`;
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		throw rt.error('download_failed', `The ${what} is not a valid URL`);
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw rt.error('download_failed', `The ${what} uses "${url.protocol}"; only http(s) is downloaded`);
	}
	const host = url.hostname.replace(/^\[|\]$/g, '');
	if (!allowLocal && isLocalHost(host)) {
		const where = isIP(host) ? `${nonPublicAddress(host)} address (${host})` : `the local host name "${host}"`;
		throw rt.error('forbidden_host', `The ${what} points to ${where}; nothing was downloaded: ${whyPublicOnly(noun)}`);
	}
	return url;
}

/** One attempt from `start`, redirects followed; `allowLocal`: local addresses too (the job's Base URL is local), else public ones only. */
async function downloadOnce<T>(rt: JobRuntime, start: URL, allowLocal: boolean, kind: Kind, read: Sink<T>): Promise<T | Transient> {
	let url = start;
	for (let hop = 0; ; hop++) {
		const res = await get(rt, url, allowLocal, kind);
		if ('transient' in res) return res;
		const status = res.statusCode;
		if (REDIRECT_STATUSES.has(status)) {
			url = await nextHop(rt, res, url, hop, allowLocal, kind.noun);
			continue;
		}
		return status === 200 ? read(rt, res) : failedStatus(rt, 'download', res);
	}
}

/** One GET, never with a credential (the signed URL authorises itself). */
async function get(rt: JobRuntime, url: URL, allowLocal: boolean, kind: Kind): Promise<Dispatcher.ResponseData | Transient> {
	try {
		const dispatcher = allowLocal ? 'localDownload' : 'publicDownload';
		return await rt.send('download', url.toString(), { method: 'GET', headers: { accept: kind.accept }, dispatcher });
	} catch (err) {
		rt.throwIfAborted();
		if (errorCode(err) === FORBIDDEN_ADDRESS_CODE) throw forbiddenAddress(rt, err, kind.noun);
		return transient('download_failed', describeNetworkError(err));
	}
}

function forbiddenAddress(rt: JobRuntime, err: unknown, noun: string) {
	let found: unknown = err;
	while (found && !(found instanceof ForbiddenAddressError)) found = (found as { cause?: unknown }).cause;
	const detail = found instanceof ForbiddenAddressError ? `${found.hostname} resolves to ${found.label} address (${found.address})` : 'its host resolves to a non-public address';
	return rt.error('forbidden_host', `The ${noun} host ${detail}; nothing was downloaded: ${whyPublicOnly(noun)}`, { code: FORBIDDEN_ADDRESS_CODE });
}

async function nextHop(rt: JobRuntime, res: Dispatcher.ResponseData, from: URL, hop: number, allowLocal: boolean, noun: string): Promise<URL> {
	const status = res.statusCode;
	await drainBody(res.body);
	const location = headerValue(res.headers, 'location');
	if (!location) throw rt.error('download_failed', `The ${noun} download answered HTTP ${status} without a Location`, { statusCode: status });
	if (hop >= MAX_REDIRECTS) {
		throw rt.error('download_failed', `The ${noun} download redirected more than ${MAX_REDIRECTS} times`, { statusCode: status });
	}
	let next: string;
	try {
		next = new URL(location, from).toString();
	} catch {
		throw rt.error('download_failed', `The ${noun} download redirected to an invalid URL`, { statusCode: status });
	}
	return checkTarget(rt, next, noun, 'redirect', allowLocal);
}

/**
 * The size rules of a 200 response: the cap (the job's unless given), the declared Content-Length (undefined when absent or not a
 * number), and the job's `too_large` error; a declared length over the cap is refused at once (the body dropped).
 */
export function sizeGate(rt: JobRuntime, res: Dispatcher.ResponseData, noun: string, maxBytes = rt.settings.maxDownloadBytes) {
	const lengthHeader = headerValue(res.headers, 'content-length');
	const declared = lengthHeader !== undefined && /^\d+$/.test(lengthHeader.trim()) ? Number(lengthHeader) : undefined;
	const tooLarge = (n: string) => rt.error('too_large', `The generated ${noun} is larger than the ${formatBytes(maxBytes)} download limit (${n})`);
	if (declared !== undefined && declared > maxBytes) {
		discardBody(res.body);
		throw tooLarge(`Content-Length ${formatBytes(declared)}`);
	}
	return { maxBytes, declared, tooLarge };
}

async function readImage(rt: JobRuntime, res: Dispatcher.ResponseData): Promise<DownloadedImage | Transient> {
	const { maxBytes, declared, tooLarge } = sizeGate(rt, res, IMAGE.noun);
	let buffer: Buffer;
	try {
		buffer = await readBody(res.body, maxBytes, declared);
	} catch (err) {
		rt.throwIfAborted();
		if (err instanceof BodyTooLargeError) throw tooLarge(`more than ${formatBytes(maxBytes)} received`);
		return cutOff(IMAGE.noun, err as BodyCutOffError);
	}
	if (declared !== undefined && buffer.length < declared) return truncated(IMAGE.noun, buffer.length, declared);
	const type = detectImageType(buffer);
	if (!type) throw notRecognised(rt, res, IMAGE);
	return { buffer, mimeType: type.mimeType, fileExtension: type.fileExtension };
}

/** A body the connection cut off mid-way (retried). */
export const cutOff = (noun: string, err: BodyCutOffError) =>
	transient('download_failed', `the ${noun} body was cut off after ${err.received} bytes (${errorCode(err.reason) ?? describeNetworkError(err.reason)})`);

/** A body shorter than its Content-Length (retried). */
export const truncated = (noun: string, received: number, declared: number) => transient('download_failed', `the ${noun} body was truncated (${received} of ${declared} bytes)`);

/** A body whose first bytes are not of its `kind`. */
export function notRecognised(rt: JobRuntime, res: Dispatcher.ResponseData, kind: Pick<FileKind<string, string>, 'notRecognised'>) {
	const ct = headerValue(res.headers, 'content-type');
	return rt.error('not_an_image', `${kind.notRecognised}${ct ? ` (served as ${ct.slice(0, 60)})` : ''}`);
}
