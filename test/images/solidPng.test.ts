import { failedSlotPng, skippedErrorPng } from '../../src/images/solidPng';
import { decodeRgbPng, verifyPng } from '../../relay-sim/pngCodec';

/** The distinct colours of a decoded image, as "r,g,b" strings. */
function coloursOf(png: Buffer): Set<string> {
	const { pixels } = decodeRgbPng(png);
	const colours = new Set<string>();
	for (let i = 0; i < pixels.length; i += 3) colours.add(`${pixels[i]},${pixels[i + 1]},${pixels[i + 2]}`);
	return colours;
}

describe('the fixed PNGs shipped as constant bytes', () => {
	it('the Skip Error image is a valid white 512×512 PNG', () => {
		expect(verifyPng(skippedErrorPng())).toMatchObject({ width: 512, height: 512 });
		expect(coloursOf(skippedErrorPng())).toEqual(new Set(['255,255,255']));
	});

	it('the failed-slot placeholder is a valid red 64×64 PNG', () => {
		expect(verifyPng(failedSlotPng())).toMatchObject({ width: 64, height: 64 });
		expect(coloursOf(failedSlotPng())).toEqual(new Set(['220,38,38']));
	});

	it('the two are different images and each call returns the same bytes', () => {
		expect(skippedErrorPng().equals(failedSlotPng())).toBe(false);
		expect(skippedErrorPng()).toBe(skippedErrorPng());
		expect(failedSlotPng()).toBe(failedSlotPng());
	});
});
