/**
 * The result store's size bound (COMFLY_STORE_MAX_MB) must never cost a paid image: the pool keeps only a
 * reference to a stored result, so evicting it before a collector read it would lose an image that was paid
 * for (and a re-run would pay again). Results younger than the pool's result TTL are spared by the size bound.
 */
import '../engine/harness'; // first: it prepares jest to load n8n-core
import type { RelaySimulator } from '../../relay-sim';
import { readPromptFromPng } from '../../relay-sim';
import { getStore } from '../../src/store';
import { allFiles } from '../store/tempStore';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { runPromptBatch } from './setup';

let sim: RelaySimulator;
// Three images of ~600 KB: together over a 1 MB store.
useRelaySimulator({ latencyMs: 0, imageBytes: 600 * 1024, imageSize: { width: 64, height: 64 } }, (started) => (sim = started));

beforeEach(() => {
	process.env.COMFLY_STORE_MAX_MB = '1';
});
afterEach(() => {
	delete process.env.COMFLY_STORE_MAX_MB;
});

it('a batch bigger than the store bound is delivered whole: nothing uncollected is evicted', async () => {
	const prompts = ['a moth', 'a beetle', 'a cricket'];
	const run = await runPromptBatch(sim, prompts);
	expect(run.error?.message).toBeUndefined();
	expect(run.status).toBe('success');
	const slots = run.outputOf('Collect', 0);
	expect(slots.map((item) => item.json.status)).toEqual(['success', 'success', 'success']);
	const pngs = await Promise.all(slots.map(async (item) => await run.binaryBuffer(item, 'data')));
	expect(pngs.map((png) => readPromptFromPng(png))).toEqual(prompts);
	expect(getStore().config.maxBytes).toBe(1024 * 1024);
});

it('nothing in the store folder contains the API key, also after a failed job journaled its reason', async () => {
	sim.setFault('refused', { on: 'submit', status: 400, body: { detail: `bad key ${sim.apiKey}` } });
	const run = await runPromptBatch(sim, ['a wasp', 'refused'], { collect: { failureMode: 'placeholder' } });
	expect(run.outputOf('Collect', 0).map((item) => item.json.status)).toEqual(['success', 'failed']);
	const files = allFiles(getStore().config.dir);
	expect(files.length).toBeGreaterThan(0);
	for (const { file, bytes } of files) expect({ file, hasKey: bytes.includes(sim.apiKey) }).toEqual({ file, hasKey: false });
	expect(JSON.stringify(run.outputOf('Collect', 1))).not.toContain(sim.apiKey);
	expect(JSON.stringify(run.outputOf('Collect', 0).map((item) => item.json))).not.toContain(sim.apiKey);
});
