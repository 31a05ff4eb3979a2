/** The simulator's FLUX 3 Video endpoint: both styles, BFL's strict schema, its own 5-active cap, MP4 clips. */
import { parseArgs } from '../../relay-sim/cli';
import { readPromptFromMp4, type RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from './useRelaySimulator';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 60_000, videoBytes: 64 * 1024 }, (started) => (sim = started));

const relay = () => ({ authorization: `Bearer ${sim.apiKey}`, 'content-type': 'application/json' });

async function submit(body: unknown, model = 'flux-3-video', style: 'relay' | 'bfl' = 'relay') {
	const url = style === 'relay' ? `${sim.url}/bfl/v1/${model}` : `${sim.url}/v1/${model}`;
	const headers = style === 'relay' ? relay() : { 'x-key': sim.apiKey, 'content-type': 'application/json' };
	const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
	return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const t2v = (prompt: string) => ({ mode: 't2v', prompt, duration: 5 });

describe('relay-sim FLUX 3 Video', () => {
	it('refuses what BFL refuses (422): a field outside its mode, an unknown field, bad keyframe timing', async () => {
		expect((await submit({ ...t2v('p'), keyframes: ['https://e.example/a.png'] })).json.detail).toEqual([expect.objectContaining({ loc: ['body', 'keyframes'], type: 'extra_forbidden' })]);
		expect((await submit({ ...t2v('p'), seed: 3 })).json.detail).toEqual([{ loc: ['body', 'seed'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 3 }]);
		expect((await submit({ mode: 'v2v', prompt: 'p' })).json.detail).toEqual([{ loc: ['body', 'start_video'], msg: 'Field required', type: 'missing' }]);
		const timed = { mode: 'i2v', prompt: 'p', duration: 5, keyframes: [[1, 'https://e.example/a.png'], [1.01, 'https://e.example/b.png']] };
		expect((await submit(timed)).json.detail).toEqual([expect.objectContaining({ loc: ['body', 'keyframes'], msg: expect.stringMatching(/1\/24 s/) })]);
		expect((await submit({ mode: 'i2v', prompt: 'p', keyframes: ['a', 'b', 'c'].map((n) => `https://e.example/${n}.png`) })).json.detail).toEqual([expect.objectContaining({ loc: ['body', 'duration'] })]);
		expect(sim.activeVideoTasks()).toBe(0);
	});

	it('caps active video tasks at 5 (429), apart from the image cap; both API styles', async () => {
		for (let i = 0; i < 5; i++) expect((await submit(t2v(`clip ${i}`), 'flux-3-video', i % 2 ? 'bfl' : 'relay')).status).toBe(200);
		const refused = await submit(t2v('clip 6'));
		expect(refused.status).toBe(429);
		expect((await submit({ prompt: 'an image meanwhile' }, 'flux-3-image')).status).toBe(200);
		expect(sim.activeVideoTasks()).toBe(5);
		expect(sim.log.peakActiveVideoTasks).toBe(5);
		expect(sim.log.submits.map((s) => s.model)).toEqual(['video', 'video', 'video', 'video', 'video', 'video', 'image']);
	});

	it('serves a Ready clip as an MP4 (ftyp box) of the configured size holding its prompt', async () => {
		sim.setLatency(0);
		const { json } = await submit(t2v('a clip to read'));
		const poll = await fetch(`${sim.url}/bfl/v1/get_result?id=${String(json.id)}`, { headers: relay() });
		const sample = ((await poll.json()) as { result: { sample: string } }).result.sample;
		expect(sample).toMatch(/\/files\/[\w-]+\.mp4\?/);
		const clip = Buffer.from(await (await fetch(sample)).arrayBuffer());
		expect(clip.length).toBe(64 * 1024);
		expect(clip.toString('latin1', 4, 8)).toBe('ftyp');
		expect(readPromptFromMp4(clip)).toBe('a clip to read');
		sim.setLatency(60_000);
	});

	it('CLI: --max-active-video and --video-bytes', () => {
		expect(parseArgs(['--max-active-video', '3', '--video-bytes', '1000'])).toMatchObject({ maxActiveVideoTasks: 3, videoBytes: 1000 });
		expect(parseArgs([])).not.toHaveProperty('maxActiveVideoTasks');
	});
});
