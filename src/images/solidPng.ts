import { crc32, deflateSync } from 'node:zlib';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** One PNG chunk: length, type, data, CRC over type and data. */
export function pngChunk(type: string, data: Buffer): Buffer {
	const length = Buffer.alloc(4);
	length.writeUInt32BE(data.length);
	const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(typeAndData));
	return Buffer.concat([length, typeAndData, crc]);
}

/**
 * Encode an 8-bit RGB PNG. `pixels` holds width*height*3 bytes, row by row.
 * `extraChunks` go between IHDR and IDAT (e.g. a tEXt chunk).
 */
export function encodeRgbPng(
	width: number,
	height: number,
	pixels: Buffer,
	extraChunks: Buffer[] = [],
	compressionLevel = 9,
): Buffer {
	const header = Buffer.alloc(13);
	header.writeUInt32BE(width, 0);
	header.writeUInt32BE(height, 4);
	header[8] = 8; // bit depth
	header[9] = 2; // colour type: truecolour
	const stride = width * 3;
	const raw = Buffer.alloc((stride + 1) * height);
	for (let y = 0; y < height; y++) {
		raw[y * (stride + 1)] = 0; // filter: none
		pixels.copy(raw, y * (stride + 1) + 1, y * stride, (y + 1) * stride);
	}
	return Buffer.concat([
		PNG_SIGNATURE,
		pngChunk('IHDR', header),
		...extraChunks,
		pngChunk('IDAT', deflateSync(raw, { level: compressionLevel })),
		pngChunk('IEND', Buffer.alloc(0)),
	]);
}

/** A PNG filled with one colour. */
export function solidPng(width: number, height: number, rgb: readonly [number, number, number]): Buffer {
	const pixels = Buffer.alloc(width * height * 3);
	for (let i = 0; i < pixels.length; i += 3) {
		pixels[i] = rgb[0];
		pixels[i + 1] = rgb[1];
		pixels[i + 2] = rgb[2];
	}
	return encodeRgbPng(width, height, pixels);
}

let whitePlaceholder: Buffer | undefined;
let redPlaceholder: Buffer | undefined;

/** The Skip Error image: white, 512×512 (as in the ComfyUI original). */
export function skippedErrorPng(): Buffer {
	whitePlaceholder ??= solidPng(512, 512, [255, 255, 255]);
	return whitePlaceholder;
}

/** The collector's placeholder for a failed slot: red, 64×64. */
export function failedSlotPng(): Buffer {
	redPlaceholder ??= solidPng(64, 64, [220, 38, 38]);
	return redPlaceholder;
}
