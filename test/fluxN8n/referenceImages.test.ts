import { randomUUID } from 'node:crypto';

import { parseFluxParameters } from '../../src/fluxN8n/fluxParameters';
import { InvalidParameterError } from '../../src/parameters/invalidParameter';
import { resolveReferenceImages, type KnownBinaries, type ResolveReferenceImagesOptions } from '../../src/fluxN8n/referenceImages';
import type { ReadBinary } from '../../src/parameters/mediaSources';
import { sharedReferenceImages } from '../../src/fluxN8n/sharedReferenceImages';
import { solidPng } from '../../relay-sim/pngCodec';
import { jpegHeader } from '../support/mediaBytes';

// FLUX 3 Image takes references of at least 256×256.
const PNG = solidPng(256, 256, [10, 20, 30]);
const JPEG = jpegHeader(300, 400);

const binaries: Record<string, { buffer: Buffer; mimeType?: string }> = {
	data: { buffer: PNG, mimeType: 'image/png' },
	photo: { buffer: JPEG },
	doc: { buffer: Buffer.from('%PDF-1.7 ...'), mimeType: 'image/png' },
	big: { buffer: Buffer.concat([PNG, Buffer.alloc(2000)]) },
	small: { buffer: solidPng(100, 100, [0, 0, 0]) },
};
const getBinary: ReadBinary = async (name) => binaries[name];

/** Both boundary steps, as the node runs them: parse the raw entries, then resolve the binaries. */
async function resolve(raw: unknown[], read: ReadBinary = getBinary, opts: ResolveReferenceImagesOptions = {}) {
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

	it('refuses a FLUX 3 Image reference under 256×256 or over 16 megapixels, saying the size found and the rule', async () => {
		const [field, message] = await fieldOf(() => resolve(['data', 'https://example.com/tiny.png', 'small']));
		expect(field).toBe('referenceImages[2]');
		expect(message).toMatch(/binary property "small" is 100×100 pixels; FLUX 3 Image needs at least 256×256/);
		const huge = async () => ({ buffer: jpegHeader(4097, 4096) });
		expect(await fieldOf(() => resolve(['huge'], huge, { model: 'flux-3-image' }))).toEqual([
			'referenceImages[0]',
			expect.stringMatching(/"huge" is 4097×4096 pixels; FLUX 3 Image takes at most 16,777,216 pixels \(4096×4096\)/),
		]);
		expect(await resolve(['big'], async () => ({ buffer: jpegHeader(4096, 4096) }))).toHaveLength(1);
	});

	it('refuses a FLUX 3 Image reference whose base64 is over 20 MB, or whose header gives no size', async () => {
		const [, large] = await fieldOf(() => resolve(['large'], async () => ({ buffer: Buffer.concat([PNG, Buffer.alloc(16 * 1024 * 1024)]) })));
		expect(large).toMatch(/"large" is 21\.3 MB as base64; FLUX 3 Image takes at most 20 MB of base64 per reference image/);
		const [field, cut] = await fieldOf(() => resolve(['data', 'cut'], async (name) => ({ buffer: name === 'cut' ? PNG.subarray(0, 20) : PNG })));
		expect(field).toBe('referenceImages[1]');
		expect(cut).toMatch(/"cut" has a damaged or cut-short image header/);
	});

	it('FLUX.2 references are not measured (BFL documents no pixel limits for them)', async () => {
		expect(await resolve(['small'], getBinary, { model: 'flux-2-pro' })).toHaveLength(1);
	});

	it('a copy this run already resolved is measured again for the model of the item that reuses it', async () => {
		const known: KnownBinaries = { identify: (property) => (property === 'small' ? 'id:small' : undefined), copies: new Map() };
		let reads = 0;
		const read: ReadBinary = async (name) => (name === 'small' ? (reads++, { buffer: solidPng(100, 300, [1, 2, 3]) }) : binaries[name]);
		expect(await resolve(['small'], read, { known, model: 'flux-2-klein-4b' })).toHaveLength(1);
		const [field, message] = await fieldOf(() => resolve(['data', 'small'], read, { known }));
		expect([field, reads]).toEqual(['referenceImages[1]', 1]);
		expect(message).toMatch(/"small" is 100×300 pixels; FLUX 3 Image needs at least 256×256/);
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
		const read: ReadBinary = async (name) => {
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
