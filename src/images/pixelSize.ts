/**
 * An image's pixel size read from its header (PNG IHDR, JPEG SOF, WebP VP8/VP8L/VP8X, GIF screen), never decoding
 * it: from its bytes, or from its plain base64 (decoding only the few bytes each step needs, never a whole copy).
 */

export interface PixelSize {
	width: number;
	height: number;
}

/** Up to `length` bytes at `offset` (fewer at the end). */
type ReadAt = (offset: number, length: number) => Buffer;

/** A JPEG scan stops here: its frame header comes before any image data, after at most a few metadata segments. */
const MAX_JPEG_SEGMENTS = 1000;

function png(at: ReadAt): PixelSize | undefined {
	const head = at(12, 12);
	if (head.length < 12 || head.toString('latin1', 0, 4) !== 'IHDR') return undefined;
	return { width: head.readUInt32BE(4), height: head.readUInt32BE(8) };
}

function gif(at: ReadAt): PixelSize | undefined {
	const head = at(6, 4);
	return head.length < 4 ? undefined : { width: head.readUInt16LE(0), height: head.readUInt16LE(2) };
}

function webp(at: ReadAt): PixelSize | undefined {
	const head = at(12, 18);
	if (head.length < 18) return undefined;
	const chunk = head.toString('latin1', 0, 4);
	// Lossy: a key frame's start code, then 14-bit sizes (the top 2 bits are the scale).
	if (chunk === 'VP8 ' && head.readUIntBE(11, 3) === 0x9d012a) return { width: head.readUInt16LE(14) & 0x3fff, height: head.readUInt16LE(16) & 0x3fff };
	if (chunk === 'VP8L' && head[8] === 0x2f) {
		const bits = head.readUInt32LE(9);
		return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
	}
	// Extended: the canvas, 24-bit sizes minus one.
	if (chunk === 'VP8X') return { width: head.readUIntLE(12, 3) + 1, height: head.readUIntLE(15, 3) + 1 };
	return undefined;
}

/** A frame header (SOF0–SOF15) carries the size; C4 (DHT), C8 (JPG) and CC (DAC) are other segments. */
const isFrameHeader = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

function jpeg(at: ReadAt): PixelSize | undefined {
	let offset = 2;
	for (let segments = 0; segments < MAX_JPEG_SEGMENTS; segments++) {
		const head = at(offset, 9);
		if (head.length < 4 || head[0] !== 0xff) return undefined;
		const marker = head[1];
		if (marker === 0xff) {
			offset++; // fill byte
			continue;
		}
		if (isFrameHeader(marker)) return head.length < 9 ? undefined : { width: head.readUInt16BE(7), height: head.readUInt16BE(5) };
		if (marker === 0xda || marker === 0xd9) return undefined; // image data or the end, and no frame header yet
		offset += (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01 ? 2 : 2 + head.readUInt16BE(2);
	}
	return undefined;
}

function readSize(at: ReadAt): PixelSize | undefined {
	const magic = at(0, 12);
	let size: PixelSize | undefined;
	if (magic.readUInt32BE(0) === 0x89504e47) size = png(at);
	else if (magic[0] === 0xff && magic[1] === 0xd8) size = jpeg(at);
	else if (magic.toString('latin1', 0, 4) === 'RIFF' && magic.toString('latin1', 8, 12) === 'WEBP') size = webp(at);
	else if (magic.toString('latin1', 0, 4) === 'GIF8') size = gif(at);
	return size && size.width > 0 && size.height > 0 ? size : undefined;
}

/** The pixel size of a PNG, JPEG, WebP or GIF; undefined for another format or a header that gives none. */
export function pixelSizeOf(bytes: Buffer): PixelSize | undefined {
	if (bytes.length < 12) return undefined;
	return readSize((offset, length) => bytes.subarray(offset, offset + length));
}

/** {@link pixelSizeOf} an image held as plain base64 (text or its ASCII bytes), decoding only what each step reads. */
export function pixelSizeOfBase64(base64: string | Buffer): PixelSize | undefined {
	const text = (from: number, to: number) => (typeof base64 === 'string' ? base64.slice(from, to) : base64.toString('latin1', from, to));
	if (base64.length < 16) return undefined;
	return readSize((offset, length) => {
		const first = Math.floor(offset / 3);
		const bytes = Buffer.from(text(4 * first, 4 * Math.ceil((offset + length) / 3)), 'base64');
		return bytes.subarray(offset - 3 * first, offset - 3 * first + length);
	});
}

/** A model's limits on an input image's pixel size, and its name as a refusal says it. */
export interface PixelLimits {
	model: string;
	/** Both sides at least this. */
	minSide: number;
	/** Width × height at most this. */
	maxPixels?: number;
}

/** What is wrong with an image of `size` (undefined: its header gave none) under `limits`, as a refusal says it. */
export function pixelSizeProblem(size: PixelSize | undefined, limits: PixelLimits): string | undefined {
	if (!size) return `has a damaged or cut-short image header (no pixel size in it); ${limits.model} needs to know an image's size`;
	const found = `is ${size.width}×${size.height} pixels`;
	const { minSide, maxPixels } = limits;
	if (size.width < minSide || size.height < minSide) return `${found}; ${limits.model} needs at least ${minSide}×${minSide}`;
	if (maxPixels !== undefined && size.width * size.height > maxPixels) {
		const side = Math.sqrt(maxPixels);
		return `${found}; ${limits.model} takes at most ${maxPixels.toLocaleString('en-US')} pixels (${side}×${side})`;
	}
	return undefined;
}
