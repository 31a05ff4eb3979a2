/** What a medium sent as base64 is, read from its bytes: a PNG / JPEG / WebP with its size, or an MP4 with its length. */

export interface ImageHeader {
	kind: 'png' | 'jpeg' | 'webp';
	width: number;
	height: number;
}

export interface Mp4Header {
	kind: 'mp4';
	seconds?: number;
}

/** The image type and size of `bytes` (its first bytes suffice but for a JPEG with large metadata), else undefined. */
export function imageHeader(bytes: Buffer): ImageHeader | undefined {
	if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.toString('latin1', 12, 16) === 'IHDR') {
		return { kind: 'png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
	}
	if (bytes.length >= 30 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return webpHeader(bytes);
	if (bytes.length >= 4 && bytes.readUInt16BE(0) === 0xffd8) return jpegHeader(bytes);
	return undefined;
}

function webpHeader(bytes: Buffer): ImageHeader | undefined {
	const chunk = bytes.toString('latin1', 12, 16);
	if (chunk === 'VP8 ') return { kind: 'webp', width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
	if (chunk === 'VP8L') {
		const bits = bytes.readUInt32LE(21);
		return { kind: 'webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
	}
	if (chunk === 'VP8X') return { kind: 'webp', width: 1 + bytes.readUIntLE(24, 3), height: 1 + bytes.readUIntLE(27, 3) };
	return undefined;
}

/** A JPEG's size from its first SOFn segment (markers C0–CF but DHT C4, JPG C8, DAC CC). */
function jpegHeader(bytes: Buffer): ImageHeader | undefined {
	let at = 2;
	while (at + 9 <= bytes.length) {
		if (bytes[at] !== 0xff) return undefined;
		const marker = bytes[at + 1];
		if (marker === 0xff) {
			at++;
			continue;
		}
		if (marker >= 0xd0 && marker <= 0xd9) {
			at += 2;
			continue;
		}
		if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
			return { kind: 'jpeg', height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
		}
		at += 2 + bytes.readUInt16BE(at + 2);
	}
	return undefined;
}

/** An MP4 (an `ftyp` box first) and its length from `moov/mvhd` when it has one, else undefined. */
export function mp4Header(bytes: Buffer): Mp4Header | undefined {
	if (bytes.length < 8 || bytes.toString('latin1', 4, 8) !== 'ftyp') return undefined;
	const moov = findBox(bytes, 0, bytes.length, 'moov');
	const mvhd = moov && findBox(bytes, moov.start, moov.end, 'mvhd');
	if (!mvhd || mvhd.start + 32 > mvhd.end) return { kind: 'mp4' };
	const v1 = bytes[mvhd.start] === 1;
	const scale = bytes.readUInt32BE(mvhd.start + (v1 ? 20 : 12));
	const duration = v1 ? Number(bytes.readBigUInt64BE(mvhd.start + 24)) : bytes.readUInt32BE(mvhd.start + 16);
	return scale > 0 ? { kind: 'mp4', seconds: duration / scale } : { kind: 'mp4' };
}

/** The payload span of the first box of `type` among the boxes in [from, to). */
function findBox(bytes: Buffer, from: number, to: number, type: string): { start: number; end: number } | undefined {
	let at = from;
	while (at + 8 <= to) {
		const size = bytes.readUInt32BE(at);
		if (size < 8 || at + size > to) return undefined;
		if (bytes.toString('latin1', at + 4, at + 8) === type) return { start: at + 8, end: at + size };
		at += size;
	}
	return undefined;
}
