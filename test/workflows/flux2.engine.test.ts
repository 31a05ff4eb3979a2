/**
 * FLUX.2 on the FLUX image node and its twin, through n8n's real engine and the relay simulator: the Model
 * parameter picks the endpoint, the body goes in BFL's names (input_image, input_image_2, width, height, seed,
 * output_format, steps, guidance), JPEG results are typed by their bytes, bad values are refused before anything
 * is sent, and the Seed (sent upstream) still keys the store.
 */
import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import { readPromptFromJpeg, readPromptFromPng, type RelaySimulator } from '../../relay-sim';
import { solidPng } from '../../relay-sim/pngCodec';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { collectNode, fluxCredentials, imageNode, items, nodeTypes, submitNode } from './setup';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 20 }, (started) => (sim = started));

const photo = solidPng(32, 24, [180, 120, 60]).toString('base64');

async function runSerial(parameters: Record<string, unknown>, triggerItems = items({ prompt: 'a mug' }), style: 'relay' | 'bfl' = 'relay') {
	return await runWorkflow({
		nodes: [manualTrigger('Trigger'), imageNode('FLUX', { prompt: '={{ $json.prompt }}', ...parameters })],
		connections: connect(['Trigger', 'FLUX']),
		nodeTypes,
		credentials: fluxCredentials(sim, style),
		triggerItems,
	});
}

describe('the serial node on FLUX.2', () => {
	it('[klein 4B]: its endpoint, the body in BFL names with the seed, a PNG back', async () => {
		const result = await runSerial({ model: 'flux-2-klein-4b', width: 512, height: 384, seed: 7, safetyTolerance: 3 }, items({ prompt: 'klein mug' }));
		expect(result.status).toBe('success');
		expect(sim.log.submits.map((s) => s.endpoint)).toEqual(['flux-2-klein-4b']);
		expect(sim.log.submits[0].body).toEqual({ prompt: 'klein mug', width: 512, height: 384, output_format: 'png', seed: 7, safety_tolerance: 3 });
		const [out] = result.outputOf('FLUX');
		expect(out.binary?.data).toMatchObject({ mimeType: 'image/png', fileExtension: 'png' });
		expect(readPromptFromPng(await result.binaryBuffer(out))).toBe('klein mug');
	});

	it.each(['relay', 'bfl'] as const)('[flex] (%s style): steps and guidance; a JPEG result is typed by its bytes', async (style) => {
		const result = await runSerial({ model: 'flux-2-flex', steps: 28, guidance: 3.5, outputFormat: 'jpeg', seed: 1 }, items({ prompt: `flex mug ${style}` }), style);
		expect(result.status).toBe('success');
		expect(sim.log.submits[0]).toMatchObject({ endpoint: 'flux-2-flex', style, status: 200 });
		expect(sim.log.submits[0].body).toEqual({ prompt: `flex mug ${style}`, width: 1024, height: 1024, output_format: 'jpeg', steps: 28, guidance: 3.5, seed: 1, safety_tolerance: 2 });
		const [out] = result.outputOf('FLUX');
		expect(out.binary?.data).toMatchObject({ mimeType: 'image/jpeg', fileExtension: 'jpg' });
		expect(out.binary?.data.fileName).toMatch(/\.jpg$/);
		const bytes = await result.binaryBuffer(out);
		expect([...bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
		expect(readPromptFromJpeg(bytes)).toBe(`flex mug ${style}`);
	});

	it('the Seed is sent and still keys the store: the same seed is served stored, another is a new job', async () => {
		const run = (seed: number) => runSerial({ model: 'flux-2-pro', seed }, items({ prompt: 'seeded mug' }));
		expect((await run(5)).outputOf('FLUX')[0].json).toMatchObject({ status: 'success', cached: false });
		expect((await run(5)).outputOf('FLUX')[0].json).toMatchObject({ status: 'success', cached: true });
		expect((await run(6)).outputOf('FLUX')[0].json).toMatchObject({ status: 'success', cached: false });
		expect(sim.log.submits.map((s) => (s.body as { seed: number }).seed)).toEqual([5, 6]);
	});
});

describe('bad FLUX.2 input is refused before anything is sent, naming field and item', () => {
	it.each([
		[{ model: 'flux-2-pro', width: 1000 }, /"Width": must be 0 or a multiple of 16 of at least 64 \(got 1000\) \[item 1\]$/],
		[{ model: 'flux-2-pro', width: 32 }, /"Width": must be 0 or a multiple of 16/],
		// Text in another base is not read as a number (Number("0x400") is 1024), as in every other number field.
		[{ model: 'flux-2-pro', width: '0x400' }, /"Width": must be a number \(got "0x400"\) \[item 1\]$/],
		[{ model: 'flux-2-flex', steps: '0b10100' }, /"Steps": must be an integer \(got "0b10100"\) \[item 1\]$/],
		[{ model: 'flux-2-max', width: 4096, height: 2048 }, /"Height": Width × Height must be at most 4194304 pixels/],
		[{ model: 'flux-2-flex', steps: 51 }, /"Steps": must be an integer from 1 to 50 \(got 51\) \[item 1\]$/],
		[{ model: 'flux-2-flex', guidance: 1 }, /"Guidance": must be a number from 1.5 to 10/],
		[{ model: 'flux-2-pro', outputFormat: 'webp' }, /"Output Format": must be one of png, jpeg/],
		[{ model: 'flux-9' }, /"Model": must be one of flux-3-image, flux-2-pro.* \(got "flux-9"\) \[item 1\]$/],
	])('%p', async (parameters, message) => {
		// Item 1 alone gets the bad value, through an expression (n8n does not enforce the editor's limits there).
		const bad = Object.fromEntries(Object.entries(parameters).map(([key, value]) => [key, key === 'model' && value !== 'flux-9' ? value : `={{ $json.bad ? ${JSON.stringify(value)} : ${JSON.stringify(key === 'model' ? 'flux-2-pro' : key === 'outputFormat' ? 'png' : key === 'guidance' ? 4 : key === 'steps' ? 20 : 1024)} }}`]));
		const result = await runSerial(bad, items({ prompt: 'fine' }, { prompt: 'bad', bad: true }));
		expect(result.status).toBe('error');
		expect(result.errorOf('FLUX')?.message).toMatch(message);
		expect(sim.log.submits).toHaveLength(0); // every item is checked before any is sent: item 0 is not paid either
	});

	it('more reference images than the model takes (klein: 4)', async () => {
		const images = Array.from({ length: 5 }, (_, i) => ({ source: `https://example.com/${i}.png` }));
		const result = await runSerial({ model: 'flux-2-klein-9b', referenceImages: { images } });
		expect(result.errorOf('FLUX')?.message).toMatch(/"Reference Images": at most 4 reference images are allowed for FLUX.2 \[klein 9B\] \(got 5\) \[item 0\]$/);
		expect(sim.log.submits).toHaveLength(0);
	});
});

it('the twin on FLUX.2 [pro]: a binary photo and a URL as input_image and input_image_2, 1024×768, results in slot order', async () => {
	const prompts = Array.from({ length: 6 }, (_, i) => `product edit ${i}`);
	const result = await runWorkflow({
		nodes: [
			manualTrigger('Trigger'),
			submitNode('Submit', {
				model: 'flux-2-pro',
				prompt: '={{ $json.prompt }}',
				width: 1024,
				height: 768,
				seed: 42,
				referenceImages: { images: [{ source: 'photo' }, { source: 'https://example.com/style.png' }] },
			}),
			collectNode('Collect', {}),
		],
		connections: connect(['Trigger', 'Submit'], ['Submit', 'Collect']),
		nodeTypes,
		credentials: fluxCredentials(sim),
		triggerItems: prompts.map((prompt) => ({ json: { prompt }, binary: { photo: { data: photo, mimeType: 'image/png' } } })),
	});
	expect(result.status).toBe('success');
	const out = result.outputOf('Collect');
	expect(out).toHaveLength(6);
	for (const [i, prompt] of prompts.entries()) expect(readPromptFromPng(await result.binaryBuffer(out[i]))).toBe(prompt);
	for (const submit of sim.log.submits) {
		expect(submit).toMatchObject({ endpoint: 'flux-2-pro', status: 200 });
		expect(submit.body).toEqual({ prompt: submit.prompt, input_image: photo, input_image_2: 'https://example.com/style.png', width: 1024, height: 768, output_format: 'png', seed: 42, safety_tolerance: 2 });
	}
});
