/**
 * The image streams the serial node and the collector hand n8n (a stored content file read back, a Cache Off download
 * file), in n8n's in-memory ('default') and 'filesystem' binary modes, through the real engine: every image arrives
 * whole, and every stream is read to its end and closed (no file of the store folder is left open).
 */
import '../engine/harness'; // first: it prepares jest to load n8n-core
import { readdirSync, readlinkSync } from 'node:fs';
import * as path from 'node:path';

import { configureEngine, connect, manualTrigger, runWorkflow, type EngineRun } from '../engine/harness';
import { readPromptFromPng, type RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { getStore } from '../../src/store';
import { fluxCredentials, imageNode, items, nodeTypes, runPromptBatch, until } from './setup';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 5, imageBytes: 512 * 1024 }, (started) => (sim = started));

/** Files of the store folder (results, downloads) this process has open; not the journal's, kept open to append by design (src/store/appendFiles.ts). */
function openStoreFiles(): string[] {
	const root = getStore().results.rootDir;
	const journal = path.join(root, 'journal') + path.sep;
	const targets = readdirSync('/proc/self/fd').map((fd) => {
		try {
			return readlinkSync(`/proc/self/fd/${fd}`);
		} catch {
			return '';
		}
	});
	return targets.filter((target) => target.startsWith(root) && !target.startsWith(journal));
}

async function promptsOf(run: EngineRun, node: string): Promise<string[]> {
	return await Promise.all(run.outputOf(node, 0).map(async (item) => String(readPromptFromPng(await run.binaryBuffer(item, 'data')))));
}

describe.each(['default', 'filesystem'] as const)("n8n's %s binary mode", (mode) => {
	beforeAll(async () => await configureEngine({ binaryDataMode: mode }));

	it.each(['reuse', 'off'] as const)('Cache %s: serial node and collector hand over whole images, every stream closed', async (cache) => {
		const prompts = [1, 2, 3, 4].map((i) => `${mode} ${cache} stream ${i}`);
		const serial = await runWorkflow({
			nodes: [manualTrigger('Trigger'), imageNode('FLUX', { prompt: '={{ $json.prompt }}', options: { cache } })],
			connections: connect(['Trigger', 'FLUX']),
			nodeTypes,
			credentials: fluxCredentials(sim),
			triggerItems: items(...prompts.map((prompt) => ({ prompt: `serial ${prompt}` }))),
		});
		expect(serial.status).toBe('success');
		expect(await promptsOf(serial, 'FLUX')).toEqual(prompts.map((prompt) => `serial ${prompt}`));

		const batch = await runPromptBatch(sim, prompts, { submit: { options: { cache } } });
		expect(batch.status).toBe('success');
		expect(await promptsOf(batch, 'Collect')).toEqual(prompts);
		await until(() => openStoreFiles().length === 0, `no file of the store folder is open (${openStoreFiles().join(', ')})`);
	});
});
