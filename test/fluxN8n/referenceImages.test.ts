import { randomUUID } from 'node:crypto';

import { parseFluxParameters } from '../../src/fluxN8n/fluxParameters';
import { InvalidParameterError } from '../../src/parameters/invalidParameter';
import { resolveReferenceImages, type GetBinary, type KnownBinaries } from '../../src/fluxN8n/referenceImages';
import { sharedReferenceImages } from '../../src/fluxN8n/sharedReferenceImages';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 9, 9]);

const binaries: Record<string, { buffer: Buffer; mimeType?: string }> = {
	data: { buffer: PNG, mimeType: 'image/png' },
	photo: { buffer: JPEG },
	doc: { buffer: Buffer.from('%PDF-1.7 ...'), mimeType: 'image/png' },
	big: { buffer: Buffer.concat([PNG, Buffer.alloc(2000)]) },
};
const getBinary: GetBinary = async (name) => binaries[name];

/** Both boundary steps, as the node runs them: parse the raw entries, then resolve the binaries. */
async function resolve(raw: unknown[], read: GetBinary = getBinary, opts = {}) {
	return await resolveReferenceImages(parseFluxParameters({ prompt: 'x', referenceImages: raw }).referenceImages, read, opts);
}

async function fieldOf(run: () => Promise<unknown>): Promise<[string, string]> {
	try {
		await run();
	} catch (err) {
		expect(err).toBeInstanceOf(InvalidParameterError);
		return [(err as InvalidParameterError).field, (err as Error).message];
	}
	throw new Error('did not reject');
}

describe('resolveReferenceImages', () => {
	it('keeps order, keeps URLs, sends binaries as plain base64 and skips empty entries', async () => {
		const images = await resolve(['photo', '', 'https://example.com/x.png', '  ', 'data']);
		expect(images).toEqual([
			{ kind: 'base64', data: JPEG.toString('base64'), mimeType: 'image/jpeg' },
			{ kind: 'url', url: 'https://example.com/x.png' },
			{ kind: 'base64', data: PNG.toString('base64'), mimeType: 'image/png' },
		]);
		expect((images[0] as { data: string }).data.startsWith('data:')).toBe(false);
	});

	it('a missing binary property names the slot and the property', async () => {
		const [field, message] = await fieldOf(() => resolve(['data', 'nope']));
		expect(field).toBe('referenceImages[1]');
		expect(message).toMatch(/"nope" not found/);
	});

	it('a binary that is not an image is an error naming the slot', async () => {
		const [field, message] = await fieldOf(() => resolve(['', 'doc']));
		expect(field).toBe('referenceImages[1]');
		expect(message).toMatch(/not a PNG, JPEG, WebP or GIF/);
	});

	it('enforces the per-image size cap', async () => {
		const [field, message] = await fieldOf(() => resolve(['big'], getBinary, { maxBytesPerImage: 1000 }));
		expect(field).toBe('referenceImages[0]');
		expect(message).toMatch(/limit/);
	});

	it.each(['file:///tmp/a.png', 'ftp://host/a.png', 'data:image/png;base64,iVBO', 'javascript:alert(1)'])('rejects scheme of %s', async (entry) => {
		const [field] = await fieldOf(() => resolve(['data', entry]));
		expect(field).toBe('referenceImages[1]');
	});

	it('rejects more than 10 images', async () => {
		const [field] = await fieldOf(() => resolve(Array(11).fill('data')));
		expect(field).toBe('referenceImages');
	});

	it('reports a failing getBinary as an error naming the slot', async () => {
		const [field] = await fieldOf(() =>
			resolve(['x'], async () => {
				throw new Error('disk gone');
			}),
		);
		expect(field).toBe('referenceImages[0]');
	});

	it('names the slot by its original index', async () => {
		const [field] = await fieldOf(() => resolveReferenceImages([{ index: 4, kind: 'binary', property: 'nope' }], getBinary));
		expect(field).toBe('referenceImages[4]');
	});

	it('the same bytes in different buffers share one encoded copy', async () => {
		const content = Buffer.concat([PNG, Buffer.from(`unique ${randomUUID()}`)]);
		const before = sharedReferenceImages().encodings;
		const copies = await Promise.all(
			Array.from({ length: 30 }, async () => await resolve(['data'], async () => ({ buffer: Buffer.from(content) }))),
		);
		expect(sharedReferenceImages().encodings - before).toBe(1);
		for (const [image] of copies) expect(image).toBe(copies[0][0]);
		expect(Object.isFrozen(copies[0][0])).toBe(true);
		const other = await resolve(['data'], async () => ({ buffer: Buffer.concat([content, Buffer.from('!')]) }));
		expect(other[0]).not.toBe(copies[0][0]);
		expect(sharedReferenceImages().encodings - before).toBe(2);
	});

	it('a binary this run already resolved is not read again; a bad one fails every item that uses it', async () => {
		const content = Buffer.concat([PNG, Buffer.from(`run ${randomUUID()}`)]);
		const copies: KnownBinaries['copies'] = new Map();
		const stored: Record<string, string> = { data: 'id:shared', other: 'id:shared', doc: 'id:doc' };
		const known: KnownBinaries = { identify: (property) => stored[property], copies };
		let reads = 0;
		const read: GetBinary = async (name) => {
			reads++;
			return name === 'doc' ? binaries.doc : { buffer: Buffer.from(content), mimeType: 'image/png' };
		};
		const images = [];
		for (let item = 0; item < 30; item++) images.push(...(await resolve(['data', 'other'], read, { known })));
		expect(reads).toBe(1);
		for (const image of images) expect(image).toBe(images[0]);
		// Not kept on failure: every item reads it and gets its own error.
		for (let item = 0; item < 3; item++) expect((await fieldOf(async () => await resolve(['', 'doc'], read, { known })))[0]).toBe('referenceImages[1]');
		expect(reads).toBe(4);
		// An unknown identity is read as usual.
		await resolve(['data'], read, { known: { identify: () => undefined, copies } });
		expect(reads).toBe(5);
	});
});
