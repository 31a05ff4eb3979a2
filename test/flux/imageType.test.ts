import { detectImageType, detectReferenceImageType } from '../../src/flux/imageType';

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.from([1, 2, 3, 4]), Buffer.from('WEBPVP8 ')]);
const gif = Buffer.from('GIF89a\x01\x00', 'latin1');

describe('detectImageType', () => {
	it('detects PNG, JPEG and WebP by magic bytes', () => {
		expect(detectImageType(png)).toEqual({ mimeType: 'image/png', fileExtension: 'png' });
		expect(detectImageType(jpeg)).toEqual({ mimeType: 'image/jpeg', fileExtension: 'jpg' });
		expect(detectImageType(webp)).toEqual({ mimeType: 'image/webp', fileExtension: 'webp' });
	});

	it('rejects HTML, empty, truncated signatures and GIF for results', () => {
		expect(detectImageType(Buffer.from('<html><body>nope</body></html>'))).toBeUndefined();
		expect(detectImageType(Buffer.alloc(0))).toBeUndefined();
		expect(detectImageType(png.subarray(0, 4))).toBeUndefined();
		expect(detectImageType(Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVE')]))).toBeUndefined();
		expect(detectImageType(gif)).toBeUndefined();
	});

	it('accepts GIF as a reference image', () => {
		expect(detectReferenceImageType(gif)).toEqual({ mimeType: 'image/gif', fileExtension: 'gif' });
		expect(detectReferenceImageType(png)?.mimeType).toBe('image/png');
	});
});
