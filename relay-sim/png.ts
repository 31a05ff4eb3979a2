/**
 * The relay simulator's images: a picture drawn from the prompt, its words written on it
 * (relay-sim/promptPicture.ts), 512×512 unless asked otherwise (the server sizes each by its submit:
 * imageSize.ts), with the prompt in a text chunk so a test can tell which prompt produced which
 * image; optionally padded to an exact file size. Reader/validator for tests in relay-sim/pngCodec.ts.
 *
 * Cheap on purpose: the drawn and compressed pixels (the IDAT chunk) are cached per prompt and size,
 * so serving the same prompt again costs only the text chunks and the copy.
 */
import {
	END_CHUNK,
	headerChunk,
	imageDataChunk,
	pngChunk,
	PNG_SIGNATURE,
	readPngText,
	textChunk,
	verifyPng,
} from './pngCodec';
import { mulberry32 } from './prng';
import { renderPromptPicture } from './promptPicture';

export { PNG_SIGNATURE, readPngText, verifyPng };
export type { PngInfo } from './pngCodec';

const PROMPT_KEYWORD = 'prompt';
const PAD_CHUNK = 'paDd'; // ancillary, private, safe-to-copy: decoders skip it
/** Default side: big enough to see the pattern in a demo, small enough to draw in a few ms. */
export const DEFAULT_IMAGE_SIDE = 512;
/** The cache of compressed pixels holds at most this many entries and bytes. */
const CACHE_ENTRIES = 256;
const CACHE_BYTES = 64 * 1024 * 1024;

export interface PromptPngOptions {
	width?: number; // default 512
	height?: number; // default 512
	/** Make the file exactly this many bytes (when larger than the minimal image) by adding a
	 *  private ancillary chunk of incompressible noise; the file stays a valid PNG. */
	padToBytes?: number;
	/** Extra text entries (keyword → text) written after the prompt, e.g. { task: id }. */
	text?: Record<string, string>;
}

/** Encode a valid PNG that shows `prompt`'s picture and carries `prompt` (tEXt, or iTXt when not Latin-1 safe). */
export function makePromptPng(prompt: string, options: PromptPngOptions = {}): Buffer {
	return Buffer.concat(makePromptPngParts(prompt, options));
}

/**
 * The same PNG as consecutive parts (write them in order): the large ones (pixels, padding) are cached
 * buffers shared between requests, so serving a padded image costs no copy and no checksum.
 */
export function makePromptPngParts(prompt: string, options: PromptPngOptions = {}): Buffer[] {
	const width = clampSide(options.width ?? DEFAULT_IMAGE_SIDE);
	const height = clampSide(options.height ?? DEFAULT_IMAGE_SIDE);
	const chunks = [headerChunk(width, height), textChunk(PROMPT_KEYWORD, prompt)];
	for (const [key, value] of Object.entries(options.text ?? {})) chunks.push(textChunk(key, value));
	const idat = imageDataFor(prompt, width, height);
	const size = PNG_SIGNATURE.length + chunks.reduce((sum, c) => sum + c.length, 0) + idat.length + END_CHUNK.length;
	const missing = (options.padToBytes ?? 0) - size;
	// Padding: a private ancillary chunk (decoders skip it) of incompressible noise, so neither
	// zlib nor transport compression shrinks the file.
	if (missing >= 12) chunks.push(...padChunks(missing));
	return [PNG_SIGNATURE, ...chunks, idat, END_CHUNK];
}

const PAD_STEP = 64 * 1024;
/** `missing` bytes of padding: a large chunk whose size is rounded down to 64 KiB (cached: shared by every
 *  image of about that size, whatever its prompt's length) and a small one for the rest. */
function padChunks(missing: number): Buffer[] {
	const big = Math.floor((missing - 24) / PAD_STEP) * PAD_STEP;
	if (big <= 0) return [padChunk(missing - 12)];
	return [padChunk(big), pngChunk(PAD_CHUNK, noise(missing - 24 - big))];
}

const padChunkCache = new Map<number, Buffer>();
/** The padding chunk of `length` noise bytes, built (copy and CRC) once per length (a few lengths kept). */
function padChunk(length: number): Buffer {
	let chunk = padChunkCache.get(length);
	if (!chunk) {
		chunk = pngChunk(PAD_CHUNK, noise(length));
		if (padChunkCache.size >= 4) padChunkCache.delete(padChunkCache.keys().next().value as number);
		padChunkCache.set(length, chunk);
	}
	return chunk;
}

/** The prompt stored by makePromptPng, or undefined when the buffer is not such a PNG. */
export function readPromptFromPng(buffer: Buffer): string | undefined {
	try {
		return readPngText(buffer)[PROMPT_KEYWORD];
	} catch {
		return undefined;
	}
}

const imageDataCache = new Map<string, Buffer>();
let cachedBytes = 0;

/** The IDAT chunk of `prompt`'s picture at this size, from a small LRU cache. */
function imageDataFor(prompt: string, width: number, height: number): Buffer {
	const key = `${width}x${height}\u0000${prompt}`;
	const cached = imageDataCache.get(key);
	if (cached) {
		imageDataCache.delete(key); // re-insert: most recently used last
		imageDataCache.set(key, cached);
		return cached;
	}
	// Sub filter: runs of one colour become zeros, so stripes, rings and ramps deflate to a few KB.
	const idat = imageDataChunk(width, height, renderPromptPicture(prompt, width, height), 'sub', 6);
	imageDataCache.set(key, idat);
	cachedBytes += idat.length;
	for (const [oldest, buffer] of imageDataCache) {
		if (imageDataCache.size <= CACHE_ENTRIES && cachedBytes <= CACHE_BYTES) break;
		imageDataCache.delete(oldest);
		cachedBytes -= buffer.length;
	}
	return idat;
}

let noiseCache = Buffer.alloc(0);
/** Deterministic pseudo-random bytes, shared by all images (a view into a cached buffer). */
function noise(length: number): Buffer {
	if (noiseCache.length < length) {
		const size = Math.max(length, 2 * noiseCache.length, 1 << 16);
		const buf = Buffer.alloc(size + 3);
		const next = mulberry32(0x5eed);
		for (let i = 0; i < size; i += 4) buf.writeUInt32LE(next(), i);
		noiseCache = buf.subarray(0, size);
	}
	return noiseCache.subarray(0, length);
}

function clampSide(n: number): number {
	if (!Number.isInteger(n) || n < 1 || n > 16384) throw new RangeError(`PNG side must be an integer 1..16384, got ${n}`);
	return n;
}
