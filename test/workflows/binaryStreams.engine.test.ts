/**
 * The image streams the serial node and the collector hand n8n (the download's copy in memory, or, without one, a
 * stored content file read back or a Cache Off download file), in n8n's in-memory ('default') and 'filesystem'
 * binary modes, through the real engine: every image arrives whole, every stream is read to its end and closed (no
 * file of the store folder is left open), and every copy was handed over (no bytes left held).
 */
import '../engine/harness'; // first: it prepares jest to load n8n-core
import { readdirSync, readlinkSync } from 'node:fs';
import * as path from 'node:path';

import { configureEngine, connect, manualTrigger, runWorkflow, type EngineRun } from '../engine/harness';
import { readPromptFromPng, type RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { heldDownloads, HeldDownloads } from '../../src/flux/heldDownloads';
import { processWide, resetProcessWide } from '../../src/processWide';
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

describe.each([
	['default', 'copies'],
	['filesystem', 'copies'],
	['default', 'no copies'],
	['filesystem', 'no copies'],
] as const)("n8n's %s binary mode, %s", (mode, copies) => {
	beforeAll(async () => {
		await configureEngine({ binaryDataMode: mode });
		await resetProcessWide(['heldDownloads']);
		if (copies === 'no copies') processWide('heldDownloads', () => new HeldDownloads(0)); // a bound no image fits: every hand-over reads the file
	});
	afterAll(async () => await resetProcessWide(['heldDownloads']));

	it.each(['reuse', 'off'] as const)('Cache %s: serial node and collector hand over whole images, every stream closed, no bytes left held', async (cache) => {
		const storeReads = jest.spyOn(getStore().results, 'openStream');
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
		expect(heldDownloads().heldBytes()).toBe(0);
		// Stored results (Cache reuse) are read back from the store only where no copy was held (the other calls are each
		// job's look for an earlier result: none, these prompts are new).
		const opened = (await Promise.all(storeReads.mock.results.map(async (call) => (await call.value) as unknown))).filter((read) => read !== undefined);
		storeReads.mockRestore();
		expect(opened).toHaveLength(cache === 'reuse' && copies === 'no copies' ? 2 * prompts.length : 0);
	});
});
