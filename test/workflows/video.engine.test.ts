/** FLUX 3 Video (serial) through n8n's real engine against the relay simulator: the three modes and validation. */
import { makePromptMp4, readPromptFromMp4, type RelaySimulator } from '../../relay-sim';
import { solidPng } from '../../relay-sim/pngCodec';
import { FLUX_VIDEO_ERROR_HINTS } from '../../src/fluxN8n/fluxErrorHints';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { items } from './setup';
import { runSerialVideo } from './videoSetup';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 20 }, (started) => (sim = started));

/** A keyframe as FLUX 3 Video takes one: at least 256×256. */
const PNG = solidPng(256, 256, [120, 80, 40]);
const binaryOf = (buffer: Buffer, mimeType: string) => ({ data: buffer.toString('base64'), mimeType });

describe.each(['relay', 'bfl'] as const)('FLUX 3 Video, text to video (%s style)', (style) => {
	it('turns every item into one MP4 item holding its own prompt, paired to its input, seed never sent', async () => {
		const prompts = ['a kite over dunes', 'rain on a tin roof'];
		const result = await runSerialVideo(sim, { prompt: '={{ $json.prompt }}', seed: 7, duration: '5' }, items(...prompts.map((prompt) => ({ prompt }))), {}, style);
		expect(result.error).toBeUndefined();
		const out = result.outputOf('Video');
		expect(out).toHaveLength(2);
		for (const [index, prompt] of prompts.entries()) {
			expect(out[index].pairedItem).toEqual({ item: index });
			expect(out[index].json).toMatchObject({ status: 'success', cached: false, attempts: 1 });
			expect(out[index].binary?.data).toMatchObject({ mimeType: 'video/mp4', fileExtension: 'mp4' });
			expect(readPromptFromMp4(await result.binaryBuffer(out[index]))).toBe(prompt);
		}
		expect(sim.log.submits.map((s) => [s.model, s.style])).toEqual([['video', style], ['video', style]]);
		expect(sim.log.submits[0].body).toEqual({ mode: 't2v', prompt: prompts[0], aspect_ratio: 'auto', resolution: 'hd', duration: 5, generate_audio: true });
		expect(sim.log.credentialOnDownload).toBe(false);
	});
});

describe('FLUX 3 Video modes', () => {
	it('i2v: binary and URL keyframes with timestamps are sent in order as [seconds, image] pairs', async () => {
		const result = await runSerialVideo(
			sim,
			{
				mode: 'i2v',
				prompt: 'the mug turns',
				duration: 8,
				generateAudio: false,
				keyframes: { frames: [{ source: 'photo', seconds: '0' }, { source: 'https://example.com/end.png', seconds: '7.5' }] },
			},
			[{ json: {}, binary: { photo: binaryOf(PNG, 'image/png') } }],
		);
		expect(result.error).toBeUndefined();
		expect(result.outputOf('Video')[0].json.status).toBe('success');
		expect(sim.log.submits[0].body).toEqual({
			mode: 'i2v',
			prompt: 'the mug turns',
			aspect_ratio: 'auto',
			resolution: 'hd',
			duration: 8,
			generate_audio: false,
			keyframes: [[0, PNG.toString('base64')], [7.5, 'https://example.com/end.png']],
		});
	});

	it('v2v: a binary start video is sent as plain base64; the output holds the new prompt', async () => {
		const clip = makePromptMp4('earlier clip');
		const result = await runSerialVideo(sim, { mode: 'v2v', prompt: 'and then it rains', startVideo: 'clip', resolution: 'fhd', aspectRatio: '16:9' }, [
			{ json: {}, binary: { clip: binaryOf(clip, 'video/mp4') } },
		]);
		expect(result.error).toBeUndefined();
		expect(sim.log.submits[0].body).toMatchObject({ mode: 'v2v', start_video: clip.toString('base64'), resolution: 'fhd', aspect_ratio: '16:9' });
		expect(readPromptFromMp4(await result.binaryBuffer(result.outputOf('Video')[0]))).toBe('and then it rains');
	});
});

describe('FLUX 3 Video validation (before anything is sent)', () => {
	it('never sends a field hidden in the mode: n8n drops it (a keyframe left from i2v is not sent in t2v)', async () => {
		const result = await runSerialVideo(sim, { prompt: 'p', mode: 't2v', keyframes: { frames: [{ source: 'https://example.com/a.png' }] }, startVideo: 'x' }, items({}));
		expect(result.error).toBeUndefined();
		expect(sim.log.submits[0].body).not.toHaveProperty('keyframes');
		expect(sim.log.submits[0].body).not.toHaveProperty('start_video');
	});

	const cases: Array<[string, Record<string, unknown>, RegExp]> = [
		['i2v without keyframes', { mode: 'i2v' }, /"Keyframes": Mode Image to Video needs 1 to 10 keyframes.*\[item 0\]$/],
		['v2v with an empty start video', { mode: 'v2v', startVideo: '={{ "" }}' }, /"Start Video": Mode Continue a Video needs a start video/],
		['3 waypoints with duration auto', { mode: 'i2v', keyframes: { frames: ['a', 'b', 'c'].map((n) => ({ source: `https://example.com/${n}.png` })) } }, /"Duration": 3 keyframes are waypoints/],
		['timestamps not increasing by a frame', { mode: 'i2v', duration: 5, keyframes: { frames: [{ source: 'https://x.example/a.png', seconds: '1' }, { source: 'https://x.example/b.png', seconds: '1.02' }] } }, /"Keyframes → Keyframe 2 → Timestamp \(Seconds\)": must come at least 1\/24 s/],
		['a timestamp past the duration', { mode: 'i2v', duration: 5, keyframes: { frames: [{ source: 'https://x.example/a.png', seconds: '6' }] } }, /"Keyframes → Keyframe 1 → Timestamp \(Seconds\)": 6 s is past the end of the 5 s clip/],
		['timestamps on some keyframes only', { mode: 'i2v', duration: 5, keyframes: { frames: [{ source: 'https://x.example/a.png', seconds: '1' }, { source: 'https://x.example/b.png' }] } }, /"Keyframes → Keyframe 2 → Timestamp \(Seconds\)": is empty/],
		['11 keyframes', { mode: 'i2v', duration: 10, keyframes: { frames: Array.from({ length: 11 }, (_, i) => ({ source: `https://x.example/${i}.png` })) } }, /"Keyframes": at most 10 keyframes/],
		['a duration of 4 s', { duration: '4' }, /"Duration": must be auto or a whole number of seconds from 5 to 20/],
		['an unknown resolution', { resolution: '4k' }, /"Resolution": must be one of hd, fhd/],
		['a missing binary keyframe', { mode: 'i2v', keyframes: { frames: [{ source: 'nothere' }] } }, /"Keyframes → Keyframe 1": binary property "nothere" not found/],
		['a start video that is not an MP4', { mode: 'v2v', startVideo: 'photo' }, /"Start Video": binary property "photo" is not an MP4 video/],
		['a keyframe that is not an image', { mode: 'i2v', keyframes: { frames: [{ source: 'clip' }] } }, /"Keyframes → Keyframe 1": binary property "clip" is not a PNG, JPEG or WebP image/],
		['Image to Video at tolerance 3', { mode: 'i2v', safetyTolerance: 3, keyframes: { frames: [{ source: 'https://x.example/a.png' }] } }, /"Safety Tolerance": must be at most 2 when the request carries keyframes \(got 3\) \[item 0\]$/],
		['a continuation of 18 s', { mode: 'v2v', startVideo: 'clip', duration: '18' }, /"Duration": must be auto or at most 15 s with Mode Continue a Video.*\(got 18\) \[item 0\]$/],
		['a tolerance of 5', { safetyTolerance: 5 }, /"Safety Tolerance": must be an integer from 0 to 4 \(got 5\) \[item 0\]$/],
		['a Model Version that is no tag', { options: { modelVersion: 'the newest one' } }, /"Options → Model Version": must be latest or a release tag.*\[item 0\]$/],
		['a missing draft cache', { mode: 'draft_enhance' }, /"Draft Cache": binary property "draftCache" not found on the input item.*\[item 0\]$/],
		['a draft cache that is an image', { mode: 'draft_enhance', draftCache: 'photo' }, /"Draft Cache": binary property "photo" is a PNG image, not a draft cache.*\[item 0\]$/],
	];
	it.each(cases)('refuses %s with an error naming the field and item', async (_name, parameters, message) => {
		const result = await runSerialVideo(sim, { prompt: 'p', ...parameters }, [
			{ json: {}, binary: { photo: binaryOf(PNG, 'image/png'), clip: binaryOf(makePromptMp4('x'), 'video/mp4') } },
		]);
		expect(result.errorOf('Video')?.message).toMatch(message);
		expect(sim.log.submits).toHaveLength(0);
	});

	it('refuses a binary start video over 50 MB and a keyframe over 20 MB, naming the limit', async () => {
		const big = Buffer.concat([makePromptMp4('big'), Buffer.alloc(50 * 1024 * 1024)]);
		const video = await runSerialVideo(sim, { prompt: 'p', mode: 'v2v', startVideo: 'clip' }, [{ json: {}, binary: { clip: binaryOf(big, 'video/mp4') } }]);
		expect(video.errorOf('Video')?.message).toMatch(/"Start Video": binary property "clip" is 50 MB, more than the 50 MB FLUX accepts for a start video/);
		const bigPng = Buffer.concat([PNG, Buffer.alloc(20 * 1024 * 1024)]);
		const frame = await runSerialVideo(sim, { prompt: 'p', mode: 'i2v', keyframes: { frames: [{ source: 'photo' }] } }, [{ json: {}, binary: { photo: binaryOf(bigPng, 'image/png') } }]);
		expect(frame.errorOf('Video')?.message).toMatch(/"Keyframes → Keyframe 1": binary property "photo" is 20 MB, more than the 20 MB FLUX accepts for a keyframe image/);
		expect(sim.log.submits).toHaveLength(0);
	});
});

describe('FLUX 3 Video faults and the store', () => {
	it('Skip Error: a moderated clip is an item with status skipped_error and the reason, and no binary', async () => {
		sim.setFault('moderated', { on: 'poll', finalStatus: 'Content Moderated' });
		const result = await runSerialVideo(sim, { prompt: '={{ $json.prompt }}', skipError: true }, items({ prompt: 'moderated clip' }, { prompt: 'fine clip' }));
		const [skipped, fine] = result.outputOf('Video');
		expect(skipped.json).toMatchObject({ status: 'skipped_error', errorKind: 'content_moderated' });
		expect(String(skipped.json.error)).toMatch(/Content Moderated/);
		expect(skipped.binary).toBeUndefined();
		expect(fine.json.status).toBe('success');
	});

	it('a failed clip gets a hint about video, not images (moderation; the 429 hint names COMFLY_VIDEO_CONCURRENCY)', async () => {
		sim.setFault('refused', { on: 'poll', finalStatus: 'Content Moderated' });
		const result = await runSerialVideo(sim, { prompt: 'refused clip' }, items({}));
		expect(result.errorOf('Video')?.description).toBe('The generated clip was refused by moderation.');
		expect(FLUX_VIDEO_ERROR_HINTS.rate_limited).toMatch(/COMFLY_VIDEO_CONCURRENCY/);
		expect(Object.values(FLUX_VIDEO_ERROR_HINTS).join(' ')).not.toMatch(/image/i);
	});

	it('a body that is not an MP4 fails the item clearly; a clip over the cap fails as too large', async () => {
		sim.setFault('html', { on: 'download', nonImage: true });
		const html = await runSerialVideo(sim, { prompt: 'html page' }, items({}));
		expect(html.errorOf('Video')?.message).toMatch(/not an MP4 video/);
		sim.setFault('huge', { on: 'download', sizeBytes: 3 * 1024 * 1024 });
		const huge = await runSerialVideo(sim, { prompt: 'huge clip', options: { maxDownloadMb: 2 } }, items({}));
		expect(huge.errorOf('Video')?.message).toMatch(/larger than the 2 MB download limit/);
	});

	it('a second identical run is served from the result store (cached, not paid again)', async () => {
		const first = await runSerialVideo(sim, { prompt: 'same clip', seed: 3 }, items({}));
		const second = await runSerialVideo(sim, { prompt: 'same clip', seed: 3 }, items({}));
		expect(second.outputOf('Video')[0].json).toMatchObject({ status: 'success', cached: true });
		expect(readPromptFromMp4(await second.binaryBuffer(second.outputOf('Video')[0]))).toBe('same clip');
		expect(first.outputOf('Video')[0].json.cached).toBe(false);
		expect(sim.log.submitsByPrompt.get('same clip')).toBe(1);
	});
});
