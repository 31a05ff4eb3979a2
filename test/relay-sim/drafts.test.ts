/**
 * FLUX 3 Video drafts at the simulator: a draft's result carries its clip and a draft cache (singular keys and
 * lists); mode draft_enhance renders that draft again at full quality from the cache alone, by its URL or its bytes;
 * a cache the simulator did not issue, altered or expired is a 422 naming draft_cache. A draft costs a third.
 */
import { readClipInfo, startRelaySimulator, type RelaySimulator } from '../../relay-sim';
import { fetchBytes, poll, refusal, submit, type Json } from './simClient';
import { useRelaySimulator } from './useRelaySimulator';

let sim: RelaySimulator;
let clock = 1_000_000;
useRelaySimulator({ latencyMs: 0, now: () => clock, signedUrlTtlMs: 60_000 }, (started) => (sim = started));

/** Submits `body` to flux-3-video and polls it once (latency 0: Ready). */
async function render(body: Record<string, unknown>): Promise<{ id: string; result: Json; cost: unknown }> {
	const answer = await submit(sim, 'flux-3-video', body, 'bfl');
	expect(refusal(answer)).toEqual([]);
	const done = await poll(sim, answer.json.id);
	expect(done.status).toBe('Ready');
	return { id: String(answer.json.id), result: done.result as Json, cost: done.cost };
}

it('a draft finishes with its clip and its draft cache, as singular keys and as lists; a full clip has no cache', async () => {
	const draft = await render({ mode: 't2v', prompt: 'a storm over the harbor', duration: 5, draft: true });
	expect(draft.result).toMatchObject({ sample: expect.stringMatching(/\.mp4\?/), draft_cache: expect.stringMatching(/\/files\/[\w-]+\.draft\?se=/) });
	expect(draft.result.samples).toEqual([draft.result.sample]);
	expect(draft.result.draft_caches).toEqual([draft.result.draft_cache]);
	const clip = await fetchBytes(draft.result.sample as string);
	expect(readClipInfo(clip.bytes)).toEqual({ prompt: 'a storm over the harbor', task: draft.id, draft: true });
	const cache = await fetchBytes(draft.result.draft_cache as string);
	expect(cache.status).toBe(200);
	expect(sim.log.draftCacheDownloads).toBe(1);
	expect(sim.log.tasks.get(draft.id)).toMatchObject({ draft: true });

	const full = await render({ mode: 't2v', prompt: 'a calm harbor', duration: 5 });
	expect(full.result).not.toHaveProperty('draft_cache');
	expect(readClipInfo((await fetchBytes(full.result.sample as string)).bytes)).toEqual({ prompt: 'a calm harbor', task: full.id });
});

it('draft → cache → enhance: by the cache URL or its bytes, a full-quality clip of the draft’s prompt at full price', async () => {
	const draft = await render({ mode: 't2v', prompt: 'a fox at dawn', duration: 5, resolution: 'fhd', draft: true });
	expect(draft.cost).toBeCloseTo(50 / 3, 2); // a third of the HD price: drafts render at HD
	const bytes = (await fetchBytes(draft.result.draft_cache as string)).bytes;

	const byUrl = await render({ mode: 'draft_enhance', draft_cache: draft.result.draft_cache, version: 'latest' });
	const byBytes = await render({ mode: 'draft_enhance', draft_cache: bytes.toString('base64') });
	for (const enhanced of [byUrl, byBytes]) {
		expect(enhanced.cost).toBe(85); // the draft's own settings, in full: 5 s of FHD
		expect(enhanced.result).not.toHaveProperty('draft_cache');
		expect(readClipInfo((await fetchBytes(enhanced.result.sample as string)).bytes)).toEqual({ prompt: 'a fox at dawn', task: enhanced.id, enhancedFrom: draft.id });
		expect(sim.log.tasks.get(enhanced.id)).toMatchObject({ prompt: 'a fox at dawn', enhancedFrom: draft.id });
		expect(sim.log.tasks.get(enhanced.id)).not.toHaveProperty('draft');
	}
	expect(sim.log.submits.map((s) => s.prompt)).toEqual(['a fox at dawn', 'a fox at dawn', 'a fox at dawn']);
});

it('drafts of i2v and v2v too', async () => {
	const i2v = await render({ mode: 'i2v', prompt: 'waves', keyframes: 'https://e.example/a.png', draft: true });
	const v2v = await render({ mode: 'v2v', prompt: 'more waves', start_video: 'https://e.example/a.mp4', duration: 15, draft: true });
	expect(i2v.cost).toBeCloseTo(100 / 3, 2); // auto: charged as 10 s
	expect(v2v.cost).toBe(50);
	for (const draft of [i2v, v2v]) expect(await render({ mode: 'draft_enhance', draft_cache: draft.result.draft_cache })).toMatchObject({ cost: expect.any(Number) });
});

it('refuses a cache it did not issue: another simulator’s, altered bytes, a clip URL, another host, an expired URL', async () => {
	const draft = await render({ mode: 't2v', prompt: 'mine', duration: 5, draft: true });
	const bytes = (await fetchBytes(draft.result.draft_cache as string)).bytes;
	const enhance = async (cache: string) => refusal(await submit(sim, 'flux-3-video', { mode: 'draft_enhance', draft_cache: cache }));

	const other = await startRelaySimulator({ latencyMs: 0 });
	try {
		const foreign = await submit(other, 'flux-3-video', { mode: 't2v', prompt: 'theirs', duration: 5, draft: true });
		const foreignUrl = (await poll(other, foreign.json.id)).result.draft_cache as string;
		const foreignBytes = (await fetchBytes(foreignUrl)).bytes;
		expect(await enhance(foreignBytes.toString('base64'))).toEqual(['draft_cache: Value error, draft_cache is not a draft cache issued by this API']);
		expect(await enhance(foreignUrl)).toEqual(['draft_cache: Value error, draft_cache URL is not a draft cache']);
	} finally {
		await other.close();
	}
	const altered = Buffer.from(bytes);
	altered[altered.length - 40] ^= 1;
	expect(await enhance(altered.toString('base64'))).toEqual(['draft_cache: Value error, draft_cache is not a draft cache issued by this API']);
	expect(await enhance(Buffer.from('not a cache').toString('base64'))).toHaveLength(1);
	expect(await enhance(draft.result.sample as string)).toEqual(['draft_cache: Value error, draft_cache URL is not a draft cache']);
	expect(await enhance(String(draft.result.draft_cache).replace(/sig=[^&]+/, 'sig=forged'))).toEqual(['draft_cache: Value error, draft_cache URL is not a draft cache']);

	clock += 60_001;
	expect(await enhance(draft.result.draft_cache as string)).toEqual(['draft_cache: Value error, draft_cache URL has expired']);
	expect((await fetchBytes(draft.result.draft_cache as string)).status).toBe(403);
	expect(await enhance(bytes.toString('base64'))).toEqual([]); // the bytes themselves do not expire
});
