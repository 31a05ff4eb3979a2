import {
	ASPECT_RATIOS,
	FluxParameterError,
	RESOLUTIONS,
	buildRequestBody,
	parseFluxParameters,
	toFluxImageRequest,
	validateFluxImageRequest,
} from '../../src/flux';

function fieldOf(fn: () => unknown): string {
	try {
		fn();
	} catch (err) {
		expect(err).toBeInstanceOf(FluxParameterError);
		return (err as FluxParameterError).field;
	}
	throw new Error('did not throw');
}

const base = { prompt: 'a red fox', resolution: '1k', aspectRatio: 'auto', grounding: true, safetyTolerance: 2 };

describe('parseFluxParameters', () => {
	it('accepts valid parameters and applies defaults', () => {
		expect(parseFluxParameters({ prompt: '  a fox  ' })).toEqual({
			prompt: 'a fox',
			resolution: '1k',
			aspectRatio: 'auto',
			grounding: true,
			safetyTolerance: 2,
			referenceImages: [],
		});
	});

	it.each(RESOLUTIONS)('accepts resolution %s', (resolution) => {
		expect(parseFluxParameters({ ...base, resolution }).resolution).toBe(resolution);
	});

	it.each(ASPECT_RATIOS)('accepts aspect ratio %s', (aspectRatio) => {
		expect(parseFluxParameters({ ...base, aspectRatio }).aspectRatio).toBe(aspectRatio);
	});

	it.each([
		[{ ...base, prompt: undefined }, 'prompt'],
		[{ ...base, prompt: '   ' }, 'prompt'],
		[{ ...base, prompt: 42 }, 'prompt'],
		[{ ...base, prompt: 'x'.repeat(20_481) }, 'prompt'],
		[{ ...base, resolution: '8k' }, 'resolution'],
		[{ ...base, resolution: '1K' }, 'resolution'],
		[{ ...base, aspectRatio: '2:1' }, 'aspectRatio'],
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
		expect(p).toMatchObject({ safetyTolerance: 4, seed: 123, grounding: false });
	});

	it('validates the seed but keeps it out of the body', () => {
		const p = parseFluxParameters({ ...base, seed: 42 });
		expect(p.seed).toBe(42);
		const body = buildRequestBody(toFluxImageRequest(p));
		expect(JSON.stringify(body)).not.toMatch(/seed/);
	});

	it('keeps order and skips empty reference entries in both accepted shapes (strings, the node rows { source })', () => {
		const expected = [
			{ index: 0, value: 'data' },
			{ index: 2, value: 'https://example.com/a.png' },
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
	});

	it('sends URLs as given and binaries as plain base64, in order', () => {
		const req = toFluxImageRequest(parseFluxParameters(base), [
			{ kind: 'base64', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
			{ kind: 'url', url: 'https://example.com/b.jpg' },
		]);
		expect(buildRequestBody(req).images).toEqual(['iVBORw0KGgo=', 'https://example.com/b.jpg']);
	});

	it('validateFluxImageRequest rejects data-URI images and more than 10', () => {
		const req = toFluxImageRequest(parseFluxParameters(base));
		expect(fieldOf(() => validateFluxImageRequest({ ...req, images: [{ kind: 'base64', data: 'data:image/png;base64,AAAA', mimeType: 'image/png' }] }))).toBe(
			'referenceImages[0]',
		);
		expect(fieldOf(() => validateFluxImageRequest({ ...req, images: Array(11).fill({ kind: 'url', url: 'https://e.com/a.png' }) }))).toBe(
			'referenceImages',
		);
		expect(fieldOf(() => validateFluxImageRequest({ ...req, resolution: '3k' }))).toBe('resolution');
	});
});
