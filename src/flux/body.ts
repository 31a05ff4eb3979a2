/** Reading HTTP responses: the one bounded body reader, error-body text, headers, byte formatting. */
import type { Dispatcher } from 'undici';

type Body = Dispatcher.ResponseData['body'];

/** Thrown by {@link readBody} when a body exceeds its limit (the rest is discarded, the socket closed). */
export class BodyTooLargeError extends Error {
	constructor(readonly limit: number) {
		super(`response larger than ${formatBytes(limit)}`);
		this.name = 'BodyTooLargeError';
	}
}

/** Thrown by {@link readBody} when the stream fails midway; `received` bytes had arrived. */
export class BodyCutOffError extends Error {
	constructor(
		readonly received: number,
		readonly reason: unknown,
	) {
		super(`the body was cut off after ${received} bytes`);
		this.name = 'BodyCutOffError';
	}
}

/**
 * Collects a body's chunks into one Buffer with a single copy per byte: into a buffer allocated once
 * from the declared length (Content-Length) when there is one, else kept as chunks and joined once at
 * the end (a body of one chunk is returned as it is). A body longer than declared keeps working.
 */
class BodyBytes {
	private chunks: Buffer[] = [];
	private target?: Buffer;
	total = 0;

	constructor(expected: number | undefined, limit: number) {
		if (expected !== undefined && expected > 0 && expected <= limit) this.target = Buffer.allocUnsafe(expected);
	}

	push(chunk: Buffer): void {
		if (this.target && this.total + chunk.length <= this.target.length) chunk.copy(this.target, this.total);
		else {
			if (this.target) {
				this.chunks = [this.target.subarray(0, this.total)]; // longer than declared: chunks from here on
				this.target = undefined;
			}
			this.chunks.push(chunk);
		}
		this.total += chunk.length;
	}

	bytes(): Buffer {
		if (this.target) return this.total === this.target.length ? this.target : this.target.subarray(0, this.total);
		return this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.total);
	}
}

/**
 * Reads a whole body, at most `limit` bytes ({@link BodyTooLargeError} / {@link BodyCutOffError} otherwise).
 * `expectedBytes` (a declared Content-Length) lets it fill one preallocated buffer instead of joining chunks.
 */
export async function readBody(body: Body, limit: number, expectedBytes?: number): Promise<Buffer> {
	const bytes = new BodyBytes(expectedBytes, limit);
	try {
		for await (const chunk of body) {
			const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
			if (bytes.total + buf.length > limit) {
				body.destroy();
				throw new BodyTooLargeError(limit);
			}
			bytes.push(buf);
		}
	} catch (err) {
		if (err instanceof BodyTooLargeError) throw err;
		throw new BodyCutOffError(bytes.total, err);
	}
	return bytes.bytes();
}

/** API responses (JSON) are read up to 1 MB. */
export const MAX_API_BODY_BYTES = 1024 * 1024;

/** Reads an API response as text (bounded). */
export async function readBodyText(body: Body, limit = MAX_API_BODY_BYTES): Promise<string> {
	return (await readBody(body, limit)).toString('utf8');
}

/**
 * Drops a body without reading it. Destroying an unread undici body that has already fully
 * arrived emits 'error' (UND_ERR_ABORTED): the listener keeps that from being an uncaught
 * exception in the n8n process.
 */
export function discardBody(body: Body): void {
	body.on('error', () => {});
	body.destroy();
}

/** Reads and discards an error body (at most 64 KB), ignoring failures. Returns the text read. */
export async function drainBody(body: Body, limit = 64 * 1024): Promise<string> {
	try {
		return await readBodyText(body, limit);
	} catch {
		discardBody(body);
		return '';
	}
}

/** How the editor names a field of the request body (e.g. `output_format` → `Output Format`); undefined: not one it shows. */
export type FieldLabel = (field: string) => string | undefined;

function pickMessage(v: unknown, label?: FieldLabel): string | undefined {
	if (typeof v === 'string') return v;
	if (Array.isArray(v)) {
		const parts = v.map((part) => pickMessage(part, label)).filter((x): x is string => !!x);
		return parts.length ? parts.join('; ') : undefined;
	}
	if (v && typeof v === 'object') {
		const o = v as Record<string, unknown>;
		const msg = pickMessage(o.msg ?? o.message ?? o.detail ?? o.error, label);
		// FastAPI's 422 detail: `loc` ["body", field, …] and a pydantic `msg` ("Value error, …" for custom checks).
		const text = msg?.replace(/^Value error, /, '');
		const loc = Array.isArray(o.loc) ? o.loc.filter((x) => x !== 'body') : [];
		const where = loc.join('.');
		// The field as the editor names it, BFL's name beside it: `Output Format (output_format)`.
		const shown = typeof loc[0] === 'string' ? label?.(loc[0]) : undefined;
		return text && where ? `${shown ? `${shown} (${where})` : where}: ${text}` : text;
	}
	return undefined;
}

/** A human-readable message from an API error body (`detail`, `message`, `error`), else the raw text; `label`: a refused field's name in the editor. */
export function apiErrorMessage(text: string, label?: FieldLabel): string {
	const trimmed = text.trim();
	if (trimmed === '') return '';
	const json = parseJson(trimmed);
	if (json && typeof json === 'object') {
		const o = json as Record<string, unknown>;
		const msg = pickMessage(o.detail, label) ?? pickMessage(o.message) ?? pickMessage(o.error) ?? pickMessage(o.status);
		if (msg) return msg.slice(0, 300);
	}
	return trimmed.slice(0, 200);
}

/** The value of a JSON text, or undefined when it is not JSON (no JSON text has that value). */
export function parseJson(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}

/** A header's value as a single string. */
export function headerValue(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
	const v = headers[name.toLowerCase()];
	return Array.isArray(v) ? v[0] : (v ?? undefined);
}

/** Bytes for people: "1 byte", "512 bytes", "97.7 KB", "50 MB". */
export function formatBytes(n: number): string {
	const round = (x: number) => String(Math.round(x * 10) / 10);
	if (n < 1024) {
		const bytes = Math.max(0, Math.floor(n));
		return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
	}
	if (n < 1024 * 1024) return `${round(n / 1024)} KB`;
	return `${round(n / (1024 * 1024))} MB`;
}
