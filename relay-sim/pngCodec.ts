/**
 * A small 8-bit RGB PNG codec for the relay simulator and its tests: chunk framing, an encoder
 * (filter None or Sub per row), a decoder back to pixels (filters None, Sub, Up), and a parser that
 * reads the text chunks and checks the file's structure. The package itself ships its two fixed PNGs
 * as constant bytes (src/images/solidPng.ts) and needs none of this at run time.
 */
import { crc32, deflateSync, inflateSync } from 'node:zlib';

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** How each row is filtered before deflate: None (0) or Sub (1, each byte minus the pixel to its left). */
export type RowFilter = 'none' | 'sub';

export interface PngInfo {
	width: number;
	height: number;
	text: Record<string, string>;
}

export interface DecodedPng {
	width: number;
	height: number;
	/** width*height*3 bytes, row by row. */
	pixels: Buffer;
}

/** One PNG chunk: length, type, data, CRC over type and data (native zlib.crc32: megabyte chunks cost ms). */
export function pngChunk(type: string, data: Buffer): Buffer {
	const out = Buffer.alloc(12 + data.length);
	out.writeUInt32BE(data.length, 0);
	out.write(type, 4, 'latin1');
	data.copy(out, 8);
	out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)) >>> 0, 8 + data.length);
	return out;
}

/** The IHDR chunk of an 8-bit truecolour image. */
export function headerChunk(width: number, height: number): Buffer {
	const header = Buffer.alloc(13);
	header.writeUInt32BE(width, 0);
	header.writeUInt32BE(height, 4);
	header[8] = 8; // bit depth
	header[9] = 2; // colour type: truecolour
	return pngChunk('IHDR', header);
}

/** The IDAT chunk for `pixels` (width*height*3 bytes, row by row). */
export function imageDataChunk(width: number, height: number, pixels: Buffer, filter: RowFilter = 'none', level = 9): Buffer {
	const stride = width * 3;
	const raw = Buffer.alloc((stride + 1) * height);
	for (let y = 0; y < height; y++) {
		const out = y * (stride + 1);
		const row = y * stride;
		if (filter === 'none') {
			pixels.copy(raw, out + 1, row, row + stride);
			continue;
		}
		raw[out] = 1;
		for (let i = 0; i < stride; i++) raw[out + 1 + i] = (pixels[row + i] - (i >= 3 ? pixels[row + i - 3] : 0)) & 0xff;
	}
	return pngChunk('IDAT', deflateSync(raw, { level }));
}

export const END_CHUNK = pngChunk('IEND', Buffer.alloc(0));

/** Encode an 8-bit RGB PNG. `extraChunks` go between IHDR and IDAT (e.g. a tEXt chunk). */
export function encodeRgbPng(width: number, height: number, pixels: Buffer, extraChunks: Buffer[] = [], filter: RowFilter = 'none'): Buffer {
	return Buffer.concat([PNG_SIGNATURE, headerChunk(width, height), ...extraChunks, imageDataChunk(width, height, pixels, filter), END_CHUNK]);
}

/** All tEXt / iTXt entries of a PNG (throws when the buffer is not a well-formed PNG). */
export function readPngText(buffer: Buffer): Record<string, string> {
	return parsePng(buffer, false).info.text;
}

/** Full check: signature, chunk CRCs, IHDR first, IEND last, IDAT inflates to the right size. */
export function verifyPng(buffer: Buffer): PngInfo {
	const { info, idat } = parsePng(buffer, true);
	inflateRows(info, idat);
	return info;
}

/** The pixels of an 8-bit RGB PNG (as written by encodeRgbPng or any encoder using filters 0–2). */
export function decodeRgbPng(buffer: Buffer): DecodedPng {
	const { info, idat } = parsePng(buffer, true);
	const raw = inflateRows(info, idat);
	const stride = info.width * 3;
	const pixels = Buffer.alloc(stride * info.height);
	for (let y = 0; y < info.height; y++) {
		const filter = raw[y * (stride + 1)];
		if (filter > 2) throw new Error(`PNG: row filter ${filter} is not supported by this decoder`);
		const row = y * stride;
		for (let i = 0; i < stride; i++) {
			const value = raw[y * (stride + 1) + 1 + i];
			const left = i >= 3 ? pixels[row + i - 3] : 0;
			const up = y > 0 ? pixels[row - stride + i] : 0;
			pixels[row + i] = (value + (filter === 1 ? left : filter === 2 ? up : 0)) & 0xff;
		}
	}
	return { width: info.width, height: info.height, pixels };
}

function inflateRows(info: PngInfo, idat: Buffer[]): Buffer {
	const raw = inflateSync(Buffer.concat(idat));
	if (raw.length !== info.height * (1 + info.width * 3)) throw new Error('PNG: IDAT size does not match IHDR');
	return raw;
}

function parsePng(buffer: Buffer, full: boolean): { info: PngInfo; idat: Buffer[] } {
	if (buffer.length < PNG_SIGNATURE.length || !buffer.subarray(0, 8).equals(PNG_SIGNATURE)) {
		throw new Error('not a PNG: bad signature');
	}
	const info: PngInfo = { width: 0, height: 0, text: {} };
	const idat: Buffer[] = [];
	let offset = 8;
	let sawEnd = false;
	for (let index = 0; offset < buffer.length && !sawEnd; index++) {
		if (offset + 12 > buffer.length) throw new Error('PNG truncated in a chunk header');
		const length = buffer.readUInt32BE(offset);
		const type = buffer.toString('latin1', offset + 4, offset + 8);
		const end = offset + 12 + length;
		if (end > buffer.length) throw new Error(`PNG truncated in chunk ${type}`);
		if (full && (crc32(buffer.subarray(offset + 4, end - 4)) >>> 0) !== buffer.readUInt32BE(end - 4)) {
			throw new Error(`PNG chunk ${type}: bad CRC`);
		}
		if (index === 0 && type !== 'IHDR') throw new Error('PNG: first chunk is not IHDR');
		readChunk(info, idat, type, buffer.subarray(offset + 8, end - 4));
		sawEnd = type === 'IEND';
		offset = end;
	}
	if (full && (!sawEnd || offset !== buffer.length)) throw new Error('PNG: IEND missing or not last');
	return { info, idat };
}

function readChunk(info: PngInfo, idat: Buffer[], type: string, data: Buffer): void {
	if (type === 'IHDR') {
		info.width = data.readUInt32BE(0);
		info.height = data.readUInt32BE(4);
	} else if (type === 'tEXt') {
		const nul = data.indexOf(0);
		if (nul > 0) info.text[data.toString('latin1', 0, nul)] = data.toString('latin1', nul + 1);
	} else if (type === 'iTXt') {
		const parsed = parseItxt(data);
		if (parsed) info.text[parsed[0]] = parsed[1];
	} else if (type === 'IDAT') {
		idat.push(data);
	}
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

/** A text chunk: tEXt when the value is Latin-1 without NUL, else an uncompressed UTF-8 iTXt. */
export function textChunk(keyword: string, value: string): Buffer {
	if (/^[\x01-\xff]*$/.test(value)) {
		return pngChunk('tEXt', Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.from([0]), Buffer.from(value, 'latin1')]));
	}
	return pngChunk('iTXt', Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.from([0, 0, 0, 0, 0]), Buffer.from(value, 'utf8')]));
}

/** A width×height PNG of one colour (tests build reference images with it). */
export function solidPng(width: number, height: number, rgb: readonly [number, number, number]): Buffer {
	const pixels = Buffer.alloc(width * height * 3);
	for (let i = 0; i < pixels.length; i += 3) pixels.set(rgb, i);
	return encodeRgbPng(width, height, pixels);
}
