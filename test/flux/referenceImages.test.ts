import { FluxParameterError, resolveReferenceImages } from '../../src/flux';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 9, 9]);

const binaries: Record<string, { buffer: Buffer; mimeType?: string }> = {
	data: { buffer: PNG, mimeType: 'image/png' },
	photo: { buffer: JPEG },
	doc: { buffer: Buffer.from('%PDF-1.7 ...'), mimeType: 'image/png' },
	big: { buffer: Buffer.concat([PNG, Buffer.alloc(2000)]) },
};
const getBinary = async (name: string) => binaries[name];

async function fieldOf(p: Promise<unknown>): Promise<[string, string]> {
	try {
		await p;
	} catch (err) {
		expect(err).toBeInstanceOf(FluxParameterError);
		return [(err as FluxParameterError).field, (err as Error).message];
	}
	throw new Error('did not reject');
}

describe('resolveReferenceImages', () => {
	it('keeps order, keeps URLs, sends binaries as plain base64 and skips empty entries', async () => {
		const images = await resolveReferenceImages(['photo', '', 'https://example.com/x.png', '  ', 'data'], getBinary);
		expect(images).toEqual([
			{ kind: 'base64', data: JPEG.toString('base64'), mimeType: 'image/jpeg' },
			{ kind: 'url', url: 'https://example.com/x.png' },
			{ kind: 'base64', data: PNG.toString('base64'), mimeType: 'image/png' },
		]);
		expect((images[0] as { data: string }).data.startsWith('data:')).toBe(false);
	});

	it('a missing binary property names the slot and the property', async () => {
		const [field, message] = await fieldOf(resolveReferenceImages(['data', 'nope'], getBinary));
		expect(field).toBe('referenceImages[1]');
		expect(message).toMatch(/"nope" not found/);
	});

	it('a binary that is not an image is an error naming the slot', async () => {
		const [field, message] = await fieldOf(resolveReferenceImages(['', 'doc'], getBinary));
		expect(field).toBe('referenceImages[1]');
		expect(message).toMatch(/not a PNG, JPEG, WebP or GIF/);
	});

	it('enforces the per-image size cap', async () => {
		const [field, message] = await fieldOf(resolveReferenceImages(['big'], getBinary, { maxBytesPerImage: 1000 }));
		expect(field).toBe('referenceImages[0]');
		expect(message).toMatch(/limit/);
	});

	it.each(['file:///tmp/a.png', 'ftp://host/a.png', 'data:image/png;base64,iVBO', 'javascript:alert(1)'])('rejects scheme of %s', async (entry) => {
		const [field] = await fieldOf(resolveReferenceImages(['data', entry], getBinary));
		expect(field).toBe('referenceImages[1]');
	});

	it('rejects more than 10 images', async () => {
		const [field] = await fieldOf(resolveReferenceImages(Array(11).fill('data'), getBinary));
		expect(field).toBe('referenceImages');
	});

	it('reports a failing getBinary as an error naming the slot', async () => {
		const [field] = await fieldOf(
			resolveReferenceImages(['x'], async () => {
				throw new Error('disk gone');
			}),
		);
		expect(field).toBe('referenceImages[0]');
	});

	it('accepts parsed entries with their original indexes', async () => {
		const [field] = await fieldOf(resolveReferenceImages([{ index: 4, value: 'nope' }], getBinary));
		expect(field).toBe('referenceImages[4]');
	});
});
