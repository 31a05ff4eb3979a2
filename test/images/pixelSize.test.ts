import { solidPng } from '../../relay-sim/pngCodec';
import { promptJpeg } from '../../relay-sim/jpeg';
import { pixelSizeOf, pixelSizeOfBase64, pixelSizeProblem } from '../../src/images/pixelSize';
import { jpegHeader, webpHeader } from '../support/mediaBytes';

/** The size read from the bytes, from their base64 text and from its ASCII bytes: all three must agree. */
function sizes(bytes: Buffer) {
	const base64 = bytes.toString('base64');
	return [pixelSizeOf(bytes), pixelSizeOfBase64(base64), pixelSizeOfBase64(Buffer.from(base64, 'latin1'))];
}

describe('pixelSizeOf / pixelSizeOfBase64', () => {
	it.each([
		['a PNG', solidPng(300, 257, [1, 2, 3]), { width: 300, height: 257 }],
		['a real JPEG (16×16)', promptJpeg('a prompt', 'task'), { width: 16, height: 16 }],
		['a baseline JPEG', jpegHeader(640, 480), { width: 640, height: 480 }],
		['a progressive JPEG', jpegHeader(4000, 3000, { frame: 0xc2 }), { width: 4000, height: 3000 }],
		['a JPEG whose frame header follows 60 KB of metadata', jpegHeader(1024, 768, { metadataBytes: 60_000 }), { width: 1024, height: 768 }],
		['a lossy WebP', webpHeader(1200, 800, 'VP8 '), { width: 1200, height: 800 }],
		['a lossless WebP', webpHeader(16383, 5, 'VP8L'), { width: 16383, height: 5 }],
		['an extended WebP', webpHeader(5000, 256, 'VP8X'), { width: 5000, height: 256 }],
		['a GIF', Buffer.from('GIF89a\x2c\x01\x00\x01\0\0\0', 'latin1'), { width: 300, height: 256 }],
	])('reads %s', (_, bytes, size) => {
		expect(sizes(bytes)).toEqual([size, size, size]);
	});

	it.each([
		['another format', Buffer.from('%PDF-1.7 not an image at all')],
		['a PNG cut short in its header', solidPng(300, 300, [0, 0, 0]).subarray(0, 20)],
		['a PNG whose first chunk is not IHDR', Buffer.concat([solidPng(300, 300, [0, 0, 0]).subarray(0, 12), Buffer.from('IDAT\0\0\0\0\0\0\0\0')])],
		['a JPEG cut short before its frame header', jpegHeader(640, 480, { metadataBytes: 1000 }).subarray(0, 500)],
		['a JPEG with image data and no frame header', Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 2, 0xff, 0xd9])],
		['a PNG of zero width', solidPng(1, 1, [0, 0, 0]).fill(0, 16, 20)],
		['a few bytes', Buffer.from([0x89, 0x50])],
	])('gives no size for %s', (_, bytes) => {
		expect(sizes(bytes)).toEqual([undefined, undefined, undefined]);
	});
});

describe('pixelSizeProblem', () => {
	const limits = { model: 'FLUX 3 Image', minSide: 256, maxPixels: 4096 * 4096 };

	it('says the size found and the rule', () => {
		expect(pixelSizeProblem({ width: 100, height: 100 }, limits)).toBe('is 100×100 pixels; FLUX 3 Image needs at least 256×256');
		expect(pixelSizeProblem({ width: 4096, height: 255 }, limits)).toMatch(/is 4096×255 pixels; FLUX 3 Image needs at least 256×256/);
		expect(pixelSizeProblem({ width: 4097, height: 4096 }, limits)).toBe('is 4097×4096 pixels; FLUX 3 Image takes at most 16,777,216 pixels (4096×4096)');
		expect(pixelSizeProblem(undefined, limits)).toMatch(/no pixel size/);
	});

	it('accepts the bounds themselves', () => {
		expect(pixelSizeProblem({ width: 256, height: 256 }, limits)).toBeUndefined();
		expect(pixelSizeProblem({ width: 4096, height: 4096 }, limits)).toBeUndefined();
		expect(pixelSizeProblem({ width: 8192, height: 2048 }, limits)).toBeUndefined();
		expect(pixelSizeProblem({ width: 100_000, height: 300 }, { model: 'FLUX 3 Video', minSide: 256 })).toBeUndefined();
	});
});
