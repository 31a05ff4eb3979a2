/**
 * The simulator's pictures say what they are: the prompt's words are written on them (read back here glyph by
 * glyph with the same font), and each picture has the shape of its Aspect Ratio at a scaled-down size of its
 * Resolution.
 */
import { request } from 'undici';

import { drawableText, wrapText } from '../../relay-sim/bitmapFont';
import { simulatedImageSize, SIMULATED_SIDE } from '../../relay-sim/imageSize';
import { decodeRgbPng } from '../../relay-sim/pngCodec';
import { promptTextBlock } from '../../relay-sim/promptPicture';
import { makePromptPng, readPromptFromPng, startRelaySimulator, verifyPng, type RelaySimulator } from '../../relay-sim';
const RESOLUTIONS = ['768sq', '1k', '1.5k', '2k', '4k'] as const;
import { readWords } from '../support/pictureWords';

describe('the words on the picture', () => {
	it.each([
		['a studio photo of a white ceramic mug on an oak table, soft window light', 512, 512],
		['Crème brûlée — 50 % off!', 384, 384],
		['a brass desk lamp on a walnut desk at dusk, warm light, product photo', 728, 408],
	])('%s (%i×%i) can be read back from the pixels', (prompt, width, height) => {
		const png = makePromptPng(prompt, { width, height });
		expect(readPromptFromPng(png)).toBe(prompt);
		const decoded = decodeRgbPng(png);
		const words = readWords(decoded.pixels, decoded.width, decoded.height, prompt);
		expect(words).toEqual(promptTextBlock(prompt, width, height)!.lines);
		expect(words.join(' ').replace(/\.\.\.$/, '')).toBe(drawableText(prompt).slice(0, words.join(' ').replace(/\.\.\.$/, '').length));
	});

	it('wraps at spaces, and ends a prompt too long for the picture with "..."', () => {
		expect(wrapText('one two three four five', 9, 5)).toEqual(['ONE TWO', 'THREE', 'FOUR FIVE']);
		expect(wrapText('one two three four five', 9, 2)).toEqual(['ONE TWO', 'THREE...']);
		expect(wrapText('crème  brûlée\n', 20, 1)).toEqual(['CREME BRULEE']);
	});

	it('leaves pictures too small for words (the benchmarks’ 8×8) as they were', () => {
		expect(promptTextBlock('a fox', 8, 8)).toBeUndefined();
	});
});

describe('the picture size', () => {
	it('follows Resolution (scaled down) and Aspect Ratio', () => {
		expect(simulatedImageSize({})).toEqual({ width: 512, height: 512 });
		expect(simulatedImageSize({ resolution: '768sq', aspect_ratio: '1:1' })).toEqual({ width: 384, height: 384 });
		expect(simulatedImageSize({ resolution: '2k', aspect_ratio: '16:9' })).toEqual({ width: 1024, height: 576 });
		expect(simulatedImageSize({ resolution: '1k', aspect_ratio: '9:16' })).toEqual({ width: 384, height: 680 });
		// Larger tiers have more pixels, every shape about the same count as its square.
		const areas = RESOLUTIONS.map((r) => SIMULATED_SIDE[r] ** 2);
		expect([...areas].sort((a, b) => a - b)).toEqual(areas);
		const wide = simulatedImageSize({ resolution: '4k', aspect_ratio: '21:9' });
		expect(Math.abs(wide.width * wide.height - 1024 ** 2) / 1024 ** 2).toBeLessThan(0.02);
	});

	it('auto takes the shape of the first reference image when it is a PNG, else a square', () => {
		const reference = makePromptPng('a reference', { width: 64, height: 32 }).toString('base64');
		expect(simulatedImageSize({ aspect_ratio: 'auto', images: [reference] })).toEqual({ width: 728, height: 360 });
		expect(simulatedImageSize({ aspect_ratio: 'auto', images: ['https://example.com/a.png'] })).toEqual({ width: 512, height: 512 });
	});

	describe('served by the simulator', () => {
		let sim: RelaySimulator;
		beforeAll(async () => {
			sim = await startRelaySimulator({});
		});
		afterAll(async () => await sim.close());

		async function generate(body: Record<string, unknown>, target = sim): Promise<Buffer> {
			const headers = { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' };
			const submit = await request(`${target.url}/bfl/v1/flux-3-image`, { method: 'POST', headers, body: JSON.stringify(body) });
			const { id } = (await submit.body.json()) as { id: string };
			for (;;) {
				const poll = await request(`${target.url}/bfl/v1/get_result?id=${id}`, { headers });
				const answer = (await poll.body.json()) as { status: string; result?: { sample: string } };
				if (answer.status === 'Ready') {
					const download = await request(answer.result!.sample);
					return Buffer.from(await download.body.arrayBuffer());
				}
			}
		}

		it('each image has its submit’s shape and size, and its prompt', async () => {
			const png = await generate({ prompt: 'a wide lighthouse', resolution: '2k', aspect_ratio: '16:9' });
			expect(verifyPng(png)).toMatchObject({ width: 1024, height: 576, text: { prompt: 'a wide lighthouse' } });
			expect(verifyPng(await generate({ prompt: 'a tall one', aspect_ratio: '9:16' }))).toMatchObject({ width: 384, height: 680 });
		});

		it('a fixed imageSize (tests, benchmarks) still wins', async () => {
			const fixed = await startRelaySimulator({ imageSize: { width: 8, height: 8 } });
			try {
				expect(verifyPng(await generate({ prompt: 'tiny', resolution: '4k' }, fixed))).toMatchObject({ width: 8, height: 8 });
			} finally {
				await fixed.close();
			}
		});
	});
});
