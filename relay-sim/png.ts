/**
 * Prompt-tagged PNGs for the relay simulator, built on the package's encoder (src/images/solidPng.ts),
 * plus a reader/validator for tests.
 *
 * Every image is a valid 8-bit RGB PNG whose colour is derived from a hash of the prompt and
 * whose prompt is stored in a text chunk, so a test can tell which prompt produced which image.
 */
import { crc32, inflateSync } from 'node:zlib';
import { encodeRgbPng, pngChunk } from '../src/images/solidPng';
import { hash32, mulberry32 } from './prng';

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const PROMPT_KEYWORD = 'prompt';
const PAD_CHUNK = 'paDd'; // ancillary, private, safe-to-copy: decoders skip it
const DEFAULT_SIDE = 8;

export interface PromptPngOptions {
	width?: number; // default 8
	height?: number; // default 8
	/** Make the file exactly this many bytes (when larger than the minimal image) by adding a
	 *  private ancillary chunk of incompressible noise; the file stays a valid PNG. */
	padToBytes?: number;
	/** Extra text entries (keyword → text) written after the prompt, e.g. { task: id }. */
	text?: Record<string, string>;
}

export interface PngInfo {
	width: number;
	height: number;
	text: Record<string, string>;
}

/** Encode a valid PNG that carries `prompt` (tEXt, or iTXt when it is not Latin-1 safe). */
export function makePromptPng(prompt: string, options: PromptPngOptions = {}): Buffer {
	const width = clampSide(options.width ?? DEFAULT_SIDE);
	const height = clampSide(options.height ?? DEFAULT_SIDE);
	const seed = hash32(prompt);
	const pixels = solidPixels(width, height, [(seed >>> 16) & 0xff, (seed >>> 8) & 0xff, seed & 0xff]);
	const texts = [textChunk(PROMPT_KEYWORD, prompt)];
	for (const [key, value] of Object.entries(options.text ?? {})) texts.push(textChunk(key, value));
	const png = encodeRgbPng(width, height, pixels, texts);
	const missing = (options.padToBytes ?? 0) - png.length;
	if (missing < 12) return png;
	// Padding: a private ancillary chunk (decoders skip it) of incompressible noise, so neither
	// zlib nor transport compression shrinks the file. Its CRC uses native zlib.crc32: a 4 MB
	// image costs a few ms, so benchmarks measure the client, not the simulator.
	return encodeRgbPng(width, height, pixels, [...texts, fastChunk(PAD_CHUNK, noise(missing - 12))]);
}

/** The prompt stored by makePromptPng, or undefined when the buffer is not such a PNG. */
export function readPromptFromPng(buffer: Buffer): string | undefined {
	try {
		return readPngText(buffer)[PROMPT_KEYWORD];
	} catch {
		return undefined;
	}
}

/** All tEXt / iTXt entries of a PNG (throws when the buffer is not a well-formed PNG). */
export function readPngText(buffer: Buffer): Record<string, string> {
	return parsePng(buffer, false).text;
}

/** Full check: signature, chunk CRCs, IHDR first, IEND last, IDAT inflates to the right size. */
export function verifyPng(buffer: Buffer): PngInfo {
	return parsePng(buffer, true);
}

function parsePng(buffer: Buffer, full: boolean): PngInfo {
	if (buffer.length < PNG_SIGNATURE.length || !buffer.subarray(0, 8).equals(PNG_SIGNATURE)) {
		throw new Error('not a PNG: bad signature');
	}
	const text: Record<string, string> = {};
	const idat: Buffer[] = [];
	let width = 0;
	let height = 0;
	let offset = 8;
	let index = 0;
	let sawEnd = false;
	while (offset < buffer.length) {
		if (offset + 12 > buffer.length) throw new Error('PNG truncated in a chunk header');
		const length = buffer.readUInt32BE(offset);
		const type = buffer.toString('latin1', offset + 4, offset + 8);
		const end = offset + 12 + length;
		if (end > buffer.length) throw new Error(`PNG truncated in chunk ${type}`);
		const data = buffer.subarray(offset + 8, offset + 8 + length);
		if (full && (crc32(buffer.subarray(offset + 4, offset + 8 + length)) >>> 0) !== buffer.readUInt32BE(end - 4)) {
			throw new Error(`PNG chunk ${type}: bad CRC`);
		}
		if (index === 0 && type !== 'IHDR') throw new Error('PNG: first chunk is not IHDR');
		if (type === 'IHDR') {
			width = data.readUInt32BE(0);
			height = data.readUInt32BE(4);
		} else if (type === 'tEXt') {
			const nul = data.indexOf(0);
			if (nul > 0) text[data.toString('latin1', 0, nul)] = data.toString('latin1', nul + 1);
		} else if (type === 'iTXt') {
			const parsed = parseItxt(data);
			if (parsed) text[parsed[0]] = parsed[1];
		} else if (type === 'IDAT') {
			idat.push(data);
		} else if (type === 'IEND') {
			sawEnd = true;
			offset = end;
			break;
		}
		offset = end;
		index++;
	}
	if (full) {
		if (!sawEnd || offset !== buffer.length) throw new Error('PNG: IEND missing or not last');
		const raw = inflateSync(Buffer.concat(idat));
		if (raw.length !== height * (1 + width * 3)) throw new Error('PNG: IDAT size does not match IHDR');
	}
	return { width, height, text };
}

function parseItxt(data: Buffer): [string, string] | undefined {
	const k = data.indexOf(0);
	if (k <= 0) return undefined;
	const compressed = data[k + 1] === 1;
	const lang = data.indexOf(0, k + 3);
	const translated = lang < 0 ? -1 : data.indexOf(0, lang + 1);
	if (translated < 0) return undefined;
	const body = data.subarray(translated + 1);
	return [data.toString('latin1', 0, k), (compressed ? inflateSync(body) : body).toString('utf8')];
}

function textChunk(keyword: string, value: string): Buffer {
	// tEXt is Latin-1 without NUL; anything else goes into an uncompressed UTF-8 iTXt chunk.
	if (/^[\x01-\xff]*$/.test(value)) {
		return pngChunk('tEXt', Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.from([0]), Buffer.from(value, 'latin1')]));
	}
	return pngChunk(
		'iTXt',
		Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.from([0, 0, 0, 0, 0]), Buffer.from(value, 'utf8')]),
	);
}

/** Same bytes as pngChunk, with the native CRC (for megabyte-sized chunks). */
function fastChunk(type: string, data: Buffer): Buffer {
	const out = Buffer.alloc(12 + data.length);
	out.writeUInt32BE(data.length, 0);
	out.write(type, 4, 'latin1');
	data.copy(out, 8);
	out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)) >>> 0, 8 + data.length);
	return out;
}

/** width*height*3 bytes, row by row (encodeRgbPng adds the filter bytes). */
function solidPixels(width: number, height: number, colour: readonly number[]): Buffer {
	const pixels = Buffer.alloc(width * height * 3);
	for (let i = 0; i < pixels.length; i += 3) pixels.set(colour, i);
	return pixels;
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
