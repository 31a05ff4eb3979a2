/**
 * The simulator refuses what BFL refuses (FLUX_API.md), per model and per video mode, with BFL's (FastAPI's) 422:
 * `{ detail: [{ type, loc: ['body', field, …], msg, input? }] }`; and accepts every body BFL's references accept.
 */
import { makePromptMp4, makePromptPng, promptJpeg, type RelaySimulator } from '../../relay-sim';
import { mp4Lasting, pngHeader, webpHeader } from './mediaBytes';
import { refusal, submit } from './simClient';
import { useRelaySimulator } from './useRelaySimulator';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 0, maxActiveVideoTasks: undefined }, (started) => (sim = started));

const b64 = (bytes: Buffer) => bytes.toString('base64');
const reference = b64(makePromptPng('a reference', { width: 256, height: 256 }));
const EXTRA = 'Extra inputs are not permitted';

describe('flux-3-image', () => {
	const image = async (body: Record<string, unknown>) => refusal(await submit(sim, 'flux-3-image', { prompt: 'p', ...body }));

	it('accepts every field of its reference: images, the 16 aspect ratios, resolutions, grounding, tolerance 0–4, version, webhooks', async () => {
		const full = { images: ['https://e.example/a.png', reference], resolution: '4k', grounding: false, safety_tolerance: 4, version: '2026-10-01', webhook_url: 'https://e.example/hook', webhook_secret: 's' };
		expect(await image(full)).toEqual([]);
		for (const ratio of ['auto', '21:9', '2:1', '16:9', '3:2', '7:5', '4:3', '5:4', '1:1', '4:5', '3:4', '5:7', '2:3', '9:16', '1:2', '9:21']) {
			expect({ ratio, refused: await image({ aspect_ratio: ratio }) }).toEqual({ ratio, refused: [] });
		}
	});

	it('refuses seed, width, height, output_format and input_image, each by name', async () => {
		const answer = await submit(sim, 'flux-3-image', { prompt: 'p', seed: 7, width: 1024, height: 1024, output_format: 'png', input_image: reference });
		expect(answer.status).toBe(422);
		expect(answer.json.detail[0]).toEqual({ type: 'extra_forbidden', loc: ['body', 'seed'], msg: EXTRA, input: 7 });
		expect(refusal(answer)).toEqual(['seed', 'width', 'height', 'output_format', 'input_image'].map((f) => `${f}: ${EXTRA}`));
		expect(sim.log.tasks.size).toBe(0);
	});

	it('refuses values outside the schema: another W:H, tolerance 5 or 2.5, an unknown resolution, a non-boolean grounding, 0 or 11 images', async () => {
		expect(await image({ aspect_ratio: '3:1' })).toEqual([expect.stringMatching(/^aspect_ratio: Input should be 'auto', '21:9'/)]);
		expect(await image({ safety_tolerance: 5 })).toEqual(['safety_tolerance: Input should be less than or equal to 4']);
		expect(await image({ safety_tolerance: 2.5 })).toEqual(['safety_tolerance: Input should be a valid integer']);
		expect(await image({ resolution: '3k' })).toEqual([expect.stringMatching(/^resolution: Input should be '768sq'/)]);
		expect(await image({ grounding: 'yes' })).toEqual(['grounding: Input should be a valid boolean']);
		expect(await image({ images: [] })).toEqual([expect.stringMatching(/^images: List should have at least 1 item/)]);
		expect(await image({ images: Array(11).fill(reference) })).toEqual([expect.stringMatching(/^images: List should have at most 10 items/)]);
		expect(await image({ version: 3 })).toEqual(['version: Input should be a valid string']);
	});

	it('decodes base64 references: PNG, JPEG or WebP, each side at least 256, at most 16 megapixels, at most 20 MB', async () => {
		expect(await image({ images: [b64(pngHeader(256, 256)), b64(webpHeader('VP8X', 4096, 4096)), b64(webpHeader('VP8L', 300, 256))] })).toEqual([]);
		expect(await image({ images: [reference, b64(pngHeader(255, 300))] })).toEqual(['images.1: Value error, image is 255×300 pixels, smaller than 256×256']);
		expect(await image({ images: [b64(webpHeader('VP8L', 100, 100))] })).toEqual(['images.0: Value error, image is 100×100 pixels, smaller than 256×256']);
		expect(await image({ images: [b64(promptJpeg('tiny', 't'))] })).toEqual(['images.0: Value error, image is 16×16 pixels, smaller than 256×256']);
		expect(await image({ images: [b64(pngHeader(4097, 4096))] })).toEqual(['images.0: Value error, image is 4097×4096 pixels, more than 16777216 pixels']);
		expect(await image({ images: ['aGVsbG8='] })).toEqual(['images.0: Value error, base64 is not a PNG, JPEG or WebP image']);
		expect(await image({ images: ['data:image/png;base64,' + reference] })).toEqual(['images.0: Value error, send plain base64, not a data: URI']);
		const huge = Buffer.concat([pngHeader(1024, 1024), Buffer.alloc(20 * 1024 * 1024)]);
		expect(await image({ images: [b64(huge)] })).toEqual(['images.0: Value error, image larger than 20 MB']);
	});
});

describe('FLUX.2', () => {
	const flux2 = async (model: string, body: Record<string, unknown>) => refusal(await submit(sim, model, { prompt: 'p', ...body }));
	const inputs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [i ? `input_image_${i + 1}` : 'input_image', reference]));

	it('pro, flex, max: tolerance up to 5, prompt_upsampling, eight input images, seed, size, png or jpeg', async () => {
		for (const model of ['flux-2-pro', 'flux-2-flex', 'flux-2-max']) {
			const body = { ...inputs(8), safety_tolerance: 5, prompt_upsampling: true, seed: 3, width: 1024, height: 768, output_format: 'jpeg', webhook_url: 'https://e.example/h' };
			expect({ model, refused: await flux2(model, body) }).toEqual({ model, refused: [] });
			expect(await flux2(model, { ...inputs(9) })).toEqual([`input_image_9: ${EXTRA}`]);
		}
		expect(await flux2('flux-2-flex', { steps: 50, guidance: 10 })).toEqual([]);
	});

	it('klein: four input images, no prompt_upsampling; steps and guidance are flex only', async () => {
		for (const model of ['flux-2-klein-4b', 'flux-2-klein-9b']) {
			expect(await flux2(model, { ...inputs(4), safety_tolerance: 5 })).toEqual([]);
			expect(await flux2(model, { ...inputs(5), prompt_upsampling: false })).toEqual([`input_image_5: ${EXTRA}`, `prompt_upsampling: ${EXTRA}`]);
		}
		expect(await flux2('flux-2-pro', { steps: 20, guidance: 3 })).toEqual([`steps: ${EXTRA}`, `guidance: ${EXTRA}`]);
		expect(await flux2('flux-2-flex', { steps: 51, guidance: 1 })).toEqual(['steps: Input should be less than or equal to 50', 'guidance: Input should be greater than or equal to 1.5']);
	});

	it('refuses tolerance 6, a size off the 16 grid, under 64 or over 4 megapixels, webp, and FLUX 3 fields (version included)', async () => {
		expect(await flux2('flux-2-pro', { safety_tolerance: 6 })).toEqual(['safety_tolerance: Input should be less than or equal to 5']);
		expect(await flux2('flux-2-pro', { width: 1000, height: 48 })).toEqual(['width: Input should be a multiple of 16', 'height: Input should be greater than or equal to 64']);
		expect(await flux2('flux-2-max', { width: 2048, height: 2064 })).toEqual(['width: Value error, width × height must be at most 4 megapixels']);
		expect(await flux2('flux-2-pro', { output_format: 'webp' })).toEqual(["output_format: Input should be 'png' or 'jpeg'"]);
		expect(await flux2('flux-2-pro', { version: 'latest', images: [reference], aspect_ratio: '1:1', resolution: '1k' })).toEqual(
			['version', 'images', 'aspect_ratio', 'resolution'].map((f) => `${f}: ${EXTRA}`),
		);
		expect(await flux2('flux-2-klein-4b', { input_image: 'aGVsbG8=' })).toEqual(['input_image: Value error, base64 is not a PNG, JPEG or WebP image']);
	});
});

describe('flux-3-video', () => {
	const video = async (body: Record<string, unknown>) => refusal(await submit(sim, 'flux-3-video', body));
	const t2v = { mode: 't2v', prompt: 'p' };
	const i2v = { mode: 'i2v', prompt: 'p', keyframes: [reference] };
	const v2v = { mode: 'v2v', prompt: 'p', start_video: 'https://e.example/part-one.mp4' };

	it('needs a known mode', async () => {
		expect(await video({ prompt: 'p' })).toEqual([expect.stringMatching(/^mode: Input tag should be 't2v', 'i2v', 'v2v' or 'draft_enhance'/)]);
		expect(await video({ mode: 'i2i', prompt: 'p' })).toEqual([expect.stringMatching(/^mode: /)]);
	});

	it('t2v: prompt, aspect ratio, resolution, duration 5–20 or auto, audio, tolerance 0–4, draft, version; nothing else', async () => {
		expect(await video({ ...t2v, aspect_ratio: '21:9', resolution: 'fhd', duration: 20, generate_audio: false, safety_tolerance: 4, draft: true, version: 'latest' })).toEqual([]);
		expect(await video({ ...t2v, duration: 'auto' })).toEqual([]);
		expect(await video({ mode: 't2v' })).toEqual(['prompt: Field required']);
		expect(await video({ ...t2v, safety_tolerance: 5 })).toEqual(['safety_tolerance: Input should be less than or equal to 4']);
		expect(await video({ ...t2v, duration: 21 })).toEqual([expect.stringMatching(/^duration: Value error, duration must be 'auto' or a whole number of seconds from 5 to 20/)]);
		expect(await video({ ...t2v, duration: 4 })).toHaveLength(1);
		expect(await video({ ...t2v, duration: 5.5 })).toHaveLength(1);
		expect(await video({ ...t2v, aspect_ratio: '3:2' })).toEqual([expect.stringMatching(/^aspect_ratio: Input should be 'auto'/)]);
		expect(await video({ ...t2v, resolution: '4k' })).toEqual(["resolution: Input should be 'hd' or 'fhd'"]);
		expect(await video({ ...t2v, draft: 'yes' })).toEqual(['draft: Input should be a valid boolean']);
		expect(await video({ ...t2v, batch: 2, seed: 1, draft_cache: 'x', start_video: 'https://e.example/a.mp4' })).toEqual(
			['batch', 'seed', 'draft_cache', 'start_video'].map((f) => `${f}: ${EXTRA}`),
		);
	});

	it('i2v: keyframes required, each image at least 256×256; at most tolerance 2 with them', async () => {
		expect(await video({ ...i2v, safety_tolerance: 2, draft: true, version: 'latest' })).toEqual([]);
		expect(await video({ ...i2v, keyframes: 'https://e.example/a.png' })).toEqual([]);
		expect(await video({ ...i2v, keyframes: [[0, reference], [4.5, 'https://e.example/b.png']], duration: 10 })).toEqual([]);
		expect(await video({ mode: 'i2v', prompt: 'p' })).toEqual(['keyframes: Field required']);
		expect(await video({ ...i2v, keyframes: [reference, b64(pngHeader(100, 100))] })).toEqual(['keyframes.1: Value error, image is 100×100 pixels, smaller than 256×256']);
		expect(await video({ ...i2v, keyframes: Array(11).fill(reference), duration: 10 })).toEqual([expect.stringMatching(/^keyframes: List should have at most 10 items/)]);
		expect(await video({ ...i2v, safety_tolerance: 3 })).toEqual(['safety_tolerance: Value error, safety_tolerance must be at most 2 with keyframes or a start video']);
		expect(await video({ ...i2v, start_video: 'https://e.example/a.mp4' })).toEqual([`start_video: ${EXTRA}`]);
	});

	it('v2v: start_video required (an MP4 of at most 15 s), duration at most 15, tolerance at most 2', async () => {
		expect(await video({ ...v2v, duration: 15, safety_tolerance: 2, draft: true })).toEqual([]);
		expect(await video({ ...v2v, duration: 'auto', start_video: b64(makePromptMp4('part one')) })).toEqual([]);
		expect(await video({ ...v2v, start_video: b64(mp4Lasting(15)) })).toEqual([]);
		expect(await video({ ...v2v, duration: 16 })).toEqual([expect.stringMatching(/^duration: Value error, .* from 5 to 15$/)]);
		expect(await video({ ...v2v, safety_tolerance: 3 })).toEqual(['safety_tolerance: Value error, safety_tolerance must be at most 2 with keyframes or a start video']);
		expect(await video({ ...v2v, start_video: b64(mp4Lasting(18)) })).toEqual(['start_video: Value error, video is 18 s long, more than 15 s']);
		expect(await video({ ...v2v, start_video: reference })).toEqual(['start_video: Value error, base64 is not an MP4 video']);
		expect(await video({ ...v2v, keyframes: [reference] })).toEqual([`keyframes: ${EXTRA}`]);
	});

	it('draft_enhance: draft_cache required, and no prompt or generation field', async () => {
		expect(await video({ mode: 'draft_enhance' })).toEqual(['draft_cache: Field required']);
		const fields = { prompt: 'p', duration: 5, resolution: 'hd', aspect_ratio: '16:9', generate_audio: true, safety_tolerance: 2, draft: false, keyframes: [reference] };
		expect(await video({ mode: 'draft_enhance', draft_cache: 'https://e.example/cache', version: 'latest', ...fields })).toEqual([
			...Object.keys(fields).map((f) => `${f}: ${EXTRA}`),
			'draft_cache: Value error, draft_cache URL is not a draft cache',
		]);
		expect(sim.log.tasks.size).toBe(0);
	});
});
