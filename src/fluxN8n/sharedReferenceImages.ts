import { createHash } from 'node:crypto';

import type { ReferenceImage } from '../flux/request';
import { processWide } from '../processWide';

/**
 * A binary reference image encoded for the request body, shared by every job that sends the same bytes: its base64
 * is held once, as ASCII bytes (`ascii`, what request bodies are sent from); `data` builds the base64 text from them
 * each time it is read (nothing on a job's way reads it: the body, the job key and the spend terms use `ascii` or
 * the digest), so the copy costs 4/3 of the image and nothing more.
 */
export type EncodedReferenceImage = Readonly<Extract<ReferenceImage, { kind: 'base64' }>> & { readonly ascii: Buffer };

/** Bytes encoded per step: a multiple of 3, so the steps' base64 joins into the whole's (padding only at the end). */
const ENCODE_STEP = 3 * 16 * 1024;

/** The base64 of `bytes` as ASCII bytes, written in steps: no base64 text of the whole image is ever made. */
export function base64Ascii(bytes: Buffer): Buffer {
	const ascii = Buffer.allocUnsafeSlow(4 * Math.ceil(bytes.length / 3));
	let at = 0;
	for (let i = 0; i < bytes.length; i += ENCODE_STEP) at += ascii.write(bytes.subarray(i, i + ENCODE_STEP).toString('base64'), at, 'latin1');
	// allocUnsafeSlow is not zeroed: a short write would send leftover process memory in a request body.
	if (at !== ascii.length) throw new Error(`base64 of ${bytes.length} bytes came to ${at} characters, not ${ascii.length}`);
	return ascii;
}

/** An encoded copy: `kind` and `mimeType` as any base64 image, `ascii` not enumerable (a copy looks and compares like `{ kind, data, mimeType }`). */
function encodedCopy(ascii: Buffer, mimeType: string): EncodedReferenceImage {
	const copy = {
		kind: 'base64' as const,
		get data(): string {
			return ascii.toString('latin1');
		},
		mimeType,
	};
	Object.defineProperty(copy, 'ascii', { value: ascii, enumerable: false });
	return Object.freeze(copy as typeof copy & { ascii: Buffer });
}

/**
 * One base64 copy per distinct content in this process, keyed by the sha256 of
 * the bytes and the MIME type. The cache holds only weak references: a copy
 * lives exactly as long as some job's request holds it, so no code path
 * (success, failure, cancellation, a validation error in a later item) has to
 * remember to release it, and a job that drops its reference once its submit is
 * acknowledged is all the release there is.
 */
class SharedReferenceImages {
	private readonly copies = new Map<string, WeakRef<EncodedReferenceImage>>();
	/** The content digest (`sha256:<hex>` of the bytes) of every live copy, for the result store's job key. */
	private readonly digests = new WeakMap<object, string>();
	private readonly forget = new FinalizationRegistry<string>((key) => {
		if (this.copies.get(key)?.deref() === undefined) this.copies.delete(key);
	});
	/** How many base64 copies were made (for tests and benchmarks). */
	encodings = 0;

	/** The shared encoded copy of `buffer`, made on first use. */
	encode(buffer: Buffer, mimeType: string): EncodedReferenceImage {
		const sha256 = createHash('sha256').update(buffer).digest('hex');
		const key = `${mimeType}:${sha256}`;
		const existing = this.copies.get(key)?.deref();
		if (existing) return existing;
		const copy = encodedCopy(base64Ascii(buffer), mimeType);
		this.encodings++;
		this.digests.set(copy, `sha256:${sha256}`);
		this.copies.set(key, new WeakRef(copy));
		this.forget.register(copy, key);
		return copy;
	}

	/** `sha256:<hex>` of the bytes behind a copy made here (computed from the base64 for any other base64 image). */
	digestOf(copy: Readonly<Extract<ReferenceImage, { kind: 'base64' }>>): string {
		return this.digests.get(copy) ?? `sha256:${createHash('sha256').update(Buffer.from(copy.data, 'base64')).digest('hex')}`;
	}

	/** Distinct contents whose copy may still be alive. */
	get size(): number {
		return this.copies.size;
	}
}

/**
 * The process-wide cache of encoded reference images (shared by every copy of the package: src/processWide.ts,
 * so two copies encode one image once and find each other's digests).
 */
export function sharedReferenceImages(): SharedReferenceImages {
	return processWide('referenceImages', () => new SharedReferenceImages());
}
