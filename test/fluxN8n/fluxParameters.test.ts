import { requestBodyJson } from '../../src/flux';
import { flux3Image } from '../../src/models';

/** BFL's FLUX 3 Image values (FLUX_API.md), in BFL's order. */
const RESOLUTIONS = ['768sq', '1k', '1.5k', '2k', '4k'];
const ASPECT_RATIOS = ['auto', '21:9', '2:1', '16:9', '3:2', '7:5', '4:3', '5:4', '1:1', '4:5', '3:4', '5:7', '2:3', '9:16', '1:2', '9:21'];

const buildRequestBody = (req: Parameters<typeof requestBodyJson>[0]) => JSON.parse(requestBodyJson(req));
import { parseFluxParameters, toFluxImageRequest } from '../../src/fluxN8n/fluxParameters';
import { InvalidParameterError } from '../../src/parameters/invalidParameter';

function fieldOf(fn: () => unknown): string {
	try {
		fn();
	} catch (err) {
		expect(err).toBeInstanceOf(InvalidParameterError);
		return (err as InvalidParameterError).field;
	}
	throw new Error('did not throw');
}

const base = { prompt: 'a red fox', resolution: '1k', aspectRatio: 'auto', grounding: true, safetyTolerance: 2 };

describe('parseFluxParameters', () => {
	it('accepts valid parameters and applies defaults', () => {
		expect(parseFluxParameters({ prompt: '  a fox  ' })).toEqual({
			model: flux3Image,
			values: { prompt: 'a fox', resolution: '1k', aspectRatio: 'auto', grounding: true, safetyTolerance: 2, referenceImages: [], modelVersion: 'latest' },
			cacheMode: 'reuse',
			prompt: 'a fox',
			referenceImages: [],
			seed: undefined,
			skipError: false,
			timeoutMs: 600_000,
			maxDownloadBytes: 50 * 1024 * 1024,
			maxNewJobsPerExecution: 0,
		});
	});

	it.each(RESOLUTIONS)('accepts resolution %s', (resolution) => {
		expect(parseFluxParameters({ ...base, resolution }).values.resolution).toBe(resolution);
	});

	it.each(ASPECT_RATIOS)('accepts aspect ratio %s and sends it', (aspectRatio) => {
		expect(buildRequestBody(toFluxImageRequest(parseFluxParameters({ ...base, aspectRatio })))).toMatchObject({ aspect_ratio: aspectRatio });
	});

	it('offers every aspect ratio BFL accepts, in BFL’s order, each with a help text', () => {
		const property = flux3Image.parameters.find((p) => p.name === 'aspectRatio')?.property;
		expect(property?.options?.map((o) => (o as { value: string }).value)).toEqual(ASPECT_RATIOS);
		for (const option of property?.options ?? []) expect((option as { description?: string }).description).toBeTruthy();
	});

	it.each([
		[{ ...base, prompt: undefined }, 'prompt'],
		[{ ...base, prompt: '   ' }, 'prompt'],
		[{ ...base, prompt: 42 }, 'prompt'],
		[{ ...base, prompt: 'x'.repeat(20_481) }, 'prompt'],
		[{ ...base, resolution: '8k' }, 'resolution'],
		[{ ...base, resolution: '1K' }, 'resolution'],
		[{ ...base, aspectRatio: '3:1' }, 'aspectRatio'],
		[{ ...base, grounding: 'yes' }, 'grounding'],
		[{ ...base, safetyTolerance: 5 }, 'safetyTolerance'],
		[{ ...base, safetyTolerance: -1 }, 'safetyTolerance'],
		[{ ...base, safetyTolerance: 1.5 }, 'safetyTolerance'],
		[{ ...base, safetyTolerance: 'high' }, 'safetyTolerance'],
		[{ ...base, seed: 1.5 }, 'seed'],
		[{ ...base, seed: -3 }, 'seed'],
		[{ ...base, seed: 'abc' }, 'seed'],
		[{ ...base, referenceImages: ['a', 'file:///etc/passwd'] }, 'referenceImages[1]'],
		[{ ...base, referenceImages: ['', '', '', 'ftp://x/y.png'] }, 'referenceImages[3]'],
		[{ ...base, referenceImages: ['data:image/png;base64,AAAA'] }, 'referenceImages[0]'],
		[{ ...base, referenceImages: [123] }, 'referenceImages[0]'],
		[{ ...base, referenceImages: Array.from({ length: 11 }, (_, i) => `img${i}`) }, 'referenceImages'],
	])('names the field of an invalid parameter (%#)', (raw, field) => {
		expect(fieldOf(() => parseFluxParameters(raw))).toBe(field);
	});

	it('says what is wrong, naming the field', () => {
		expect(() => parseFluxParameters({ ...base, resolution: '8k' })).toThrow(/resolution.*768sq, 1k, 1\.5k, 2k, 4k/);
		expect(() => parseFluxParameters({ ...base, safetyTolerance: 9 })).toThrow(/safetyTolerance.*0 to 4/);
		expect(() => parseFluxParameters({ ...base, prompt: '' })).toThrow(/prompt.*required/);
		expect(() => parseFluxParameters({ ...base, prompt: 'x'.repeat(20_481) })).toThrow(/20480 characters/);
		expect(() => parseFluxParameters({ ...base, referenceImages: Array(11).fill('a') })).toThrow(/at most 10/);
	});

	it('counts the prompt limit in characters, not UTF-16 units', () => {
		const emoji = '🦊'.repeat(20_480); // 40 960 UTF-16 units
		expect(parseFluxParameters({ ...base, prompt: emoji }).prompt).toBe(emoji);
	});

	it('accepts integer-looking strings and boolean strings from expressions', () => {
		const p = parseFluxParameters({ ...base, safetyTolerance: '4', seed: '123', grounding: 'false' });
		expect(p).toMatchObject({ values: { safetyTolerance: 4, grounding: false }, seed: 123 });
	});

	it('validates the seed but keeps it out of the body', () => {
		const p = parseFluxParameters({ ...base, seed: 42 });
		expect(p.seed).toBe(42);
		const body = buildRequestBody(toFluxImageRequest(p));
		expect(JSON.stringify(body)).not.toMatch(/seed/);
	});

	it('keeps order and skips empty reference entries in both accepted shapes (strings, the node rows { source })', () => {
		const expected = [
			{ index: 0, kind: 'binary', property: 'data' },
			{ index: 2, kind: 'url', url: 'https://example.com/a.png' },
		];
		expect(parseFluxParameters({ ...base, referenceImages: ['data', ' ', 'https://example.com/a.png'] }).referenceImages).toEqual(expected);
		expect(
			parseFluxParameters({ ...base, referenceImages: [{ source: 'data' }, { source: '' }, { source: 'https://example.com/a.png' }] })
				.referenceImages,
		).toEqual(expected);
		expect(() => parseFluxParameters({ ...base, referenceImages: { image1: 'data' } })).toThrow(
			/"referenceImages": must be a list/,
		);
	});

	it('hints at a missing scheme', () => {
		expect(() => parseFluxParameters({ ...base, referenceImages: ['www.example.com/a.png'] })).toThrow(/without its scheme: start it with https:\/\//);
	});
});

describe('request body', () => {
	it('is the FLUX_API.md body: snake_case, images omitted when empty', () => {
		const req = toFluxImageRequest(parseFluxParameters({ ...base, aspectRatio: '16:9', safetyTolerance: 3, grounding: false }));
		expect(buildRequestBody(req)).toEqual({
			prompt: 'a red fox',
			aspect_ratio: '16:9',
			resolution: '1k',
			grounding: false,
			safety_tolerance: 3,
		});
		// A workflow saved before Model Version keeps its body: `latest` is not sent.
		expect(buildRequestBody(toFluxImageRequest(parseFluxParameters({ ...base, options: { modelVersion: 'latest' } })))).not.toHaveProperty('version');
	});

	it('sends URLs as given and binaries as plain base64, in order', () => {
		const req = toFluxImageRequest(parseFluxParameters(base), [
			{ kind: 'base64', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
			{ kind: 'url', url: 'https://example.com/b.jpg' },
		]);
		expect(buildRequestBody(req).images).toEqual(['iVBORw0KGgo=', 'https://example.com/b.jpg']);
	});
});

describe('numeric options: validated at the boundary, never a silent default', () => {
	it('takes the defaults when absent or blank, and converts units', () => {
		expect(parseFluxParameters({ ...base, options: {} })).toMatchObject({ timeoutMs: 600_000, maxDownloadBytes: 50 * 1024 * 1024 });
		expect(parseFluxParameters({ ...base, options: { timeoutMinutes: '', maxDownloadMb: null } })).toMatchObject({ timeoutMs: 600_000 });
		expect(parseFluxParameters({ ...base, options: { timeoutMinutes: 2.5, maxDownloadMb: '8' } })).toMatchObject({
			timeoutMs: 150_000,
			maxDownloadBytes: 8 * 1024 * 1024,
		});
		expect(parseFluxParameters({ ...base, options: { timeoutMinutes: 1440 } }).timeoutMs).toBe(86_400_000);
	});

	it.each([
		[{ timeoutMinutes: 'abc' }, 'options.timeoutMinutes', /^Invalid parameter "options.timeoutMinutes": must be a number greater than 0 and at most 1440 \(got "abc"\)/],
		[{ timeoutMinutes: 0 }, 'options.timeoutMinutes', /greater than 0.*\(got 0\)/],
		[{ timeoutMinutes: -5 }, 'options.timeoutMinutes', /greater than 0.*\(got -5\)/],
		[{ timeoutMinutes: 40_000 }, 'options.timeoutMinutes', /at most 1440/],
		[{ timeoutMinutes: Number.POSITIVE_INFINITY }, 'options.timeoutMinutes', /greater than 0 and at most 1440/],
		[{ maxDownloadMb: 0 }, 'options.maxDownloadMb', /must be a number from 1 to 500 \(got 0\)/],
		[{ maxDownloadMb: 1e-9 }, 'options.maxDownloadMb', /must be a number from 1 to 500/],
		[{ maxDownloadMb: 'lots' }, 'options.maxDownloadMb', /from 1 to 500 \(got "lots"\)/],
		[{ maxDownloadMb: 501 }, 'options.maxDownloadMb', /from 1 to 500/],
		// Text that Number() reads as another base is not a decimal number of minutes or MB.
		[{ timeoutMinutes: '0x10' }, 'options.timeoutMinutes', /must be a number.*\(got "0x10"\)/],
		[{ maxDownloadMb: '0b11' }, 'options.maxDownloadMb', /from 1 to 500.*\(got "0b11"\)/],
	])('refuses %p naming the field', (options, field, message) => {
		expect(fieldOf(() => parseFluxParameters({ ...base, options }))).toBe(field);
		expect(() => parseFluxParameters({ ...base, options })).toThrow(message);
	});

	it('every accepted timeout fits in a Node timer (2^31-1 ms)', () => {
		expect(parseFluxParameters({ ...base, options: { timeoutMinutes: 1440 } }).timeoutMs).toBeLessThanOrEqual(2 ** 31 - 1);
	});

	it('Skip Error accepts booleans and boolean text, and refuses anything else', () => {
		expect(parseFluxParameters({ ...base, skipError: 'false' }).skipError).toBe(false);
		expect(parseFluxParameters({ ...base, skipError: true }).skipError).toBe(true);
		expect(fieldOf(() => parseFluxParameters({ ...base, skipError: 'maybe' }))).toBe('skipError');
	});
});

describe('reserved binary property names', () => {
	it.each(['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString'])('%s is a clear error naming the slot', (name) => {
		expect(fieldOf(() => parseFluxParameters({ ...base, referenceImages: ['data', { source: name }] }))).toBe('referenceImages[1]');
		expect(() => parseFluxParameters({ ...base, referenceImages: [name] })).toThrow(/cannot be a binary property name.*reserved/);
	});
});

describe('the Cache option', () => {
	it('defaults to reuse; accepts reuse, refresh and off (any case, blank is the default)', () => {
		expect(parseFluxParameters(base).cacheMode).toBe('reuse');
		expect(parseFluxParameters({ ...base, options: { cache: '' } }).cacheMode).toBe('reuse');
		expect(parseFluxParameters({ ...base, options: { cache: 'refresh' } }).cacheMode).toBe('refresh');
		expect(parseFluxParameters({ ...base, options: { cache: ' OFF ' } }).cacheMode).toBe('off');
	});

	it('refuses anything else naming the field', () => {
		expect(fieldOf(() => parseFluxParameters({ ...base, options: { cache: 'sometimes' } }))).toBe('options.cache');
		expect(() => parseFluxParameters({ ...base, options: { cache: 'sometimes' } })).toThrow(/must be one of reuse, refresh, off \(got "sometimes"\)/);
	});
});

describe('items of one run sharing their Options object (validated once per distinct raw values)', () => {
	it('each item gets what its own raw Skip Error, Seed and Options say', () => {
		const options = { cache: 'refresh', timeoutMinutes: 2 };
		const first = parseFluxParameters({ ...base, options, seed: 1 });
		expect(first).toMatchObject({ cacheMode: 'refresh', timeoutMs: 120_000, seed: 1, skipError: false });
		expect(parseFluxParameters({ ...base, options, seed: 1 })).toEqual(first);
		expect(parseFluxParameters({ ...base, options, seed: '2' })).toMatchObject({ cacheMode: 'refresh', seed: 2 });
		expect(parseFluxParameters({ ...base, options, seed: 1, skipError: 'true' })).toMatchObject({ seed: 1, skipError: true });
		expect(parseFluxParameters({ ...base, options: { ...options, cache: 'off' }, seed: 1 })).toMatchObject({ cacheMode: 'off', timeoutMs: 120_000 });
	});

	it('an Options object changed in place is validated again', () => {
		const options: Record<string, unknown> = { cache: 'refresh', timeoutMinutes: 2 };
		expect(parseFluxParameters({ ...base, options })).toMatchObject({ cacheMode: 'refresh', timeoutMs: 120_000 });
		options.cache = 'off';
		expect(parseFluxParameters({ ...base, options }).cacheMode).toBe('off');
		options.maxDownloadMb = 2;
		expect(parseFluxParameters({ ...base, options }).maxDownloadBytes).toBe(2 * 1024 * 1024);
		options.timeoutMinutes = 'soon';
		expect(fieldOf(() => parseFluxParameters({ ...base, options }))).toBe('options.timeoutMinutes');
	});

	it('an invalid value throws for every item, and a valid one after it still validates', () => {
		const options = { cache: 'refresh' };
		for (let i = 0; i < 2; i++) expect(fieldOf(() => parseFluxParameters({ ...base, options, seed: -1 }))).toBe('seed');
		expect(parseFluxParameters({ ...base, options, seed: 3 })).toMatchObject({ cacheMode: 'refresh', seed: 3 });
	});

	it('a constant parameter’s value parsed before parses the same way again; another value gets its own answer', () => {
		for (let i = 0; i < 2; i++) {
			expect(parseFluxParameters({ ...base, resolution: '2k', safetyTolerance: '3' }).values).toMatchObject({ resolution: '2k', safetyTolerance: 3 });
			expect(fieldOf(() => parseFluxParameters({ ...base, resolution: 'huge' }))).toBe('resolution');
			expect(fieldOf(() => parseFluxParameters({ ...base, safetyTolerance: 9 }))).toBe('safetyTolerance');
			expect(parseFluxParameters({ ...base, resolution: '4k', safetyTolerance: 0 }).values).toMatchObject({ resolution: '4k', safetyTolerance: 0 });
		}
		for (let i = 0; i < 100; i++) expect(parseFluxParameters({ ...base, prompt: ` fox ${i} ` }).prompt).toBe(`fox ${i}`);
	});

	it('an item’s result is its own: changing it changes no other item', () => {
		const options = { cache: 'refresh' };
		const first = parseFluxParameters({ ...base, options });
		(first as { cacheMode: string }).cacheMode = 'off';
		expect(parseFluxParameters({ ...base, options }).cacheMode).toBe('refresh');
	});
});

describe('Options → Model Version (FLUX 3 Image)', () => {
	it('sends a pinned release tag as version', () => {
		const req = toFluxImageRequest(parseFluxParameters({ ...base, options: { modelVersion: ' flux-3-image-2026-10-01 ' } }));
		expect(buildRequestBody(req)).toMatchObject({ version: 'flux-3-image-2026-10-01' });
	});

	it.each(['two words', 'a/b', 'x'.repeat(65), 7])('refuses %p naming Options → Model Version', (modelVersion) => {
		expect(fieldOf(() => parseFluxParameters({ ...base, options: { modelVersion } }))).toBe('options.modelVersion');
	});
});

describe('FLUX.2 safety tolerance and prompt upsampling', () => {
	const flux2 = (model: string, extra: Record<string, unknown> = {}) => buildRequestBody(toFluxImageRequest(parseFluxParameters({ model, prompt: 'a fox', ...extra })));

	it('takes safety tolerance 0–5 (FLUX 3 Image: 0–4) and sends it', () => {
		expect(flux2('flux-2-pro', { safetyTolerance: 5 })).toMatchObject({ safety_tolerance: 5 });
		expect(() => parseFluxParameters({ model: 'flux-2-pro', prompt: 'p', safetyTolerance: 6 })).toThrow(/"safetyTolerance": must be an integer from 0 to 5/);
		expect(() => parseFluxParameters({ ...base, safetyTolerance: 5 })).toThrow(/"safetyTolerance": must be an integer from 0 to 4/);
	});

	it.each(['flux-2-pro', 'flux-2-flex', 'flux-2-max'])('%s sends prompt_upsampling only when true', (model) => {
		expect(flux2(model, { promptUpsampling: true })).toMatchObject({ prompt_upsampling: true });
		expect(flux2(model, { promptUpsampling: false })).not.toHaveProperty('prompt_upsampling');
		expect(flux2(model)).not.toHaveProperty('prompt_upsampling');
	});

	it('klein takes no prompt upsampling: a value there is not sent', () => {
		expect(flux2('flux-2-klein-4b', { promptUpsampling: true })).not.toHaveProperty('prompt_upsampling');
	});

	it('a bad Prompt Upsampling names the field', () => {
		expect(fieldOf(() => parseFluxParameters({ model: 'flux-2-max', prompt: 'p', promptUpsampling: 'maybe' }))).toBe('promptUpsampling');
	});
});
