/** Price keys group jobs whose price is the same; the list prices (the models' descriptors) follow BFL's published FLUX.2 table; FLUX 3 has none. */
import { priceKey } from '../../src/spend';
import { modelListPrice as listPrice } from '../../src/models';
import { readSpendLimits } from '../../src/fluxN8n/spendTerms';

describe('priceKey', () => {
	it('ignores the prompt, the seed and media content; keeps every other field sent', () => {
		const base = { prompt: 'a', resolution: '1k', aspect_ratio: 'auto', images: 1 };
		expect(priceKey('flux-3-image', base)).toBe(priceKey('flux-3-image', { ...base, prompt: 'b', seed: 7 }));
		expect(priceKey('flux-3-image', base)).not.toBe(priceKey('flux-3-image', { ...base, resolution: '2k' }));
		expect(priceKey('flux-3-image', base)).not.toBe(priceKey('flux-3-image', { ...base, images: 2 }));
		expect(priceKey('flux-3-image', base)).not.toBe(priceKey('flux-3-video', base));
		expect(priceKey('flux-3-image', { resolution: '1k', grounding: true })).toBe(priceKey('flux-3-image', { grounding: true, resolution: '1k' }));
	});
});

describe('listPrice', () => {
	it('FLUX.2 by megapixels (first, then each further one and each input image); FLUX 3 unpublished', () => {
		expect(listPrice('flux-2-pro', { width: 1024, height: 1024 })).toBe(3);
		expect(listPrice('flux-2-pro', { width: 2048, height: 2048, input_image: 'x' })).toBe(3 + 1.5 * 3 + 1.5);
		expect(listPrice('flux-2-klein-4b', {})).toBe(1.4);
		expect(listPrice('flux-2-max', { width: 1024, height: 1024, input_image: 'a', input_image_2: 'b' })).toBe(13);
		expect(listPrice('flux-3-image', { resolution: '1k' })).toBeUndefined();
		expect(listPrice('flux-3-video', { duration: 5 })).toBeUndefined();
		expect(listPrice('some-future-model', {})).toBeUndefined();
	});
});

describe('the credential limits', () => {
	it('0, empty or absent mean none; numbers (also as text) are limits; anything else names the field', () => {
		expect(readSpendLimits({ apiKey: 'k' })).toEqual({});
		expect(readSpendLimits({ dailyCreditLimit: 0, dailyJobLimit: '' })).toEqual({});
		expect(readSpendLimits({ dailyCreditLimit: 40, dailyJobLimit: '25' })).toEqual({ credits: 40, jobs: 25 });
		expect(readSpendLimits({ dailyCreditLimit: 12.5 })).toEqual({ credits: 12.5 });
		expect(() => readSpendLimits({ dailyJobLimit: -1 })).toThrow(/"Daily Job Limit" must be 0 or more/);
		expect(() => readSpendLimits({ dailyCreditLimit: 'lots' })).toThrow(/"Daily Credit Limit" must be a number/);
	});

	it('a job limit is a whole number (0.5 is not "no limit" and not 0), and text in another base is no number', () => {
		expect(() => readSpendLimits({ dailyJobLimit: 0.5 })).toThrow(/"Daily Job Limit" must be a whole number/);
		expect(() => readSpendLimits({ dailyJobLimit: '2.7' })).toThrow(/"Daily Job Limit" must be a whole number/);
		expect(() => readSpendLimits({ dailyCreditLimit: '0x10' })).toThrow(/"Daily Credit Limit" must be a number/);
		expect(() => readSpendLimits({ dailyJobLimit: '0b11' })).toThrow(/"Daily Job Limit" must be a number/);
		expect(readSpendLimits({ dailyCreditLimit: ' 12.5 ', dailyJobLimit: '1e2' })).toEqual({ credits: 12.5, jobs: 100 });
	});
});
