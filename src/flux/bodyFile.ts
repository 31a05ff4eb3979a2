/**
 * Writing a response body into a file as it arrives (one chunk in memory at a time): the file sink of image and
 * video downloads. Checks the size cap and the magic bytes while streaming, optionally hashes what it writes.
 */
import { createHash, type Hash } from 'node:crypto';
import { open } from 'node:fs/promises';
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

/** Writes `body` to the new file `filePath` (mode 0600, must not exist). The caller removes the file on failure. */
export async function writeBodyToFile(body: Body, filePath: string, rules: FileBodyRules): Promise<WrittenBody> {
	let file;
	try {
		file = await open(filePath, 'wx', 0o600);
	} catch (error) {
		discardBody(body);
		throw new FileBodyWriteError(error);
	}
	const hash = rules.hash ? createHash(rules.hash) : undefined;
	try {
		const { byteLength, head } = await pump(body, rules, hash, async (chunk) => {
			try {
				await file.write(chunk);
			} catch (error) {
				throw new FileBodyWriteError(error);
			}
		});
		return { byteLength, head, integrity: hash ? `${rules.hash}-${hash.digest('base64')}` : undefined };
	} finally {
		await file.close().catch(() => undefined);
	}
}

async function pump(body: Body, rules: FileBodyRules, hash: Hash | undefined, write: (chunk: Buffer) => Promise<void>): Promise<{ byteLength: number; head: Buffer }> {
	let total = 0;
	let head = Buffer.alloc(0);
	let sniffing = true;
	try {
		for await (const chunk of body) {
			const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
			total += buf.length;
			if (total > rules.maxBytes) throw new FileBodyTooLargeError();
			if (sniffing) {
				head = Buffer.concat([head, buf.subarray(0, rules.sniffBytes - head.length)]);
				if (head.length >= rules.sniffBytes) {
					if (!rules.recognise(head)) throw new FileBodyNotRecognisedError();
					sniffing = false;
				}
			}
			hash?.update(buf);
			await write(buf);
		}
	} catch (err) {
		if (err instanceof FileBodyTooLargeError || err instanceof FileBodyNotRecognisedError || err instanceof FileBodyWriteError) {
			discardBody(body);
			throw err;
		}
		throw new BodyCutOffError(total, err);
	}
	if (sniffing && !rules.recognise(head)) throw new FileBodyNotRecognisedError(); // a body shorter than the sniff
	return { byteLength: total, head };
}
