/**
 * Writing a response body into a file as it arrives (one chunk in memory at a time): the file sink of image and
 * video downloads. Checks the size cap and the magic bytes while streaming, optionally hashes what it writes.
 */
import { createHash, type Hash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Dispatcher } from 'undici';
import { BodyCutOffError, discardBody } from './body';

type Body = Dispatcher.ResponseData['body'];

/** More than the cap arrived (the rest is discarded). */
export class FileBodyTooLargeError extends Error {}
/** The first bytes are not of the expected kind (the rest is discarded). */
export class FileBodyNotRecognisedError extends Error {}
/** The file could not be written (disk full, no permission, …): not a network fault, not retried as one. */
export class FileBodyWriteError extends Error {
	constructor(readonly cause: unknown) {
		super(`the download could not be written: ${(cause as Error)?.message ?? String(cause)}`);
	}
}

export interface FileBodyRules {
	maxBytes: number;
	/** How many first bytes `recognise` needs. */
	sniffBytes: number;
	/** True when the first `sniffBytes` bytes (fewer when the body is shorter) are of the expected kind. */
	recognise(head: Buffer): boolean;
	/** Hash the bytes with this algorithm as they are written (e.g. "sha256"): its SRI string is returned. */
	hash?: string;
}

export interface WrittenBody {
	byteLength: number;
	/** `<algorithm>-<base64 digest>` when `hash` was asked for. */
	integrity?: string;
	/** The first `sniffBytes` bytes (fewer when the body is shorter). */
	head: Buffer;
}

/**
 * Writes `body` to the new file `filePath` (mode 0600, must not exist), piped (each chunk as it arrives, no joining
 * of chunks; the file stream batches writes). The caller removes the file on failure.
 */
export async function writeBodyToFile(body: Body, filePath: string, rules: FileBodyRules): Promise<WrittenBody> {
	const check = new BodyCheck(rules);
	// Opened before the stream: a stream that opens its own file may still create it after a failed pipeline
	// rejected, when the caller has already removed it (a stray `.part`).
	const handle = await open(filePath, 'wx', 0o600).catch((err: unknown) => {
		discardBody(body);
		throw new FileBodyWriteError(err);
	});
	const file = createWriteStream('', { fd: handle, highWaterMark: 1024 * 1024 });
	let writeError: unknown;
	file.on('error', (error) => (writeError ??= error));
	try {
		await pipeline(body, check, file);
	} catch (err) {
		if (err instanceof FileBodyTooLargeError || err instanceof FileBodyNotRecognisedError) throw err;
		if (writeError !== undefined) throw new FileBodyWriteError(writeError);
		throw new BodyCutOffError(check.total, err);
	} finally {
		if (!body.destroyed) discardBody(body);
	}
	return check.result();
}

/** Passes the body through while counting it against the cap, sniffing its first bytes and hashing it. */
class BodyCheck extends Transform {
	total = 0;
	private head = Buffer.alloc(0);
	private sniffing = true;
	private readonly hash?: Hash;

	constructor(private readonly rules: FileBodyRules) {
		super();
		if (rules.hash) this.hash = createHash(rules.hash);
	}

	override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
		this.total += chunk.length;
		if (this.total > this.rules.maxBytes) return done(new FileBodyTooLargeError());
		if (this.sniffing) {
			this.head = Buffer.concat([this.head, chunk.subarray(0, this.rules.sniffBytes - this.head.length)]);
			if (this.head.length >= this.rules.sniffBytes) {
				if (!this.rules.recognise(this.head)) return done(new FileBodyNotRecognisedError());
				this.sniffing = false;
			}
		}
		this.hash?.update(chunk);
		done(null, chunk);
	}

	override _flush(done: TransformCallback): void {
		// A body shorter than the sniff: judged on what there is.
		done(this.sniffing && !this.rules.recognise(this.head) ? new FileBodyNotRecognisedError() : null);
	}

	result(): WrittenBody {
		return { byteLength: this.total, head: this.head, integrity: this.hash ? `${this.rules.hash}-${this.hash.digest('base64')}` : undefined };
	}
}
