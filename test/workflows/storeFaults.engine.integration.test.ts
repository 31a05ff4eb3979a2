/**
 * What the store says and does when its folder is damaged or fails, through n8n's engine (Submit → Collect)
 * against the relay simulator, on real file systems: journal files cut short or lost never cost an intact
 * stored result (and a lost journal is a report warning); a disk that filled up during a batch stays in that
 * batch's report although a later small write worked; a read-only folder says "read-only" in the log and the
 * report.
 */
import '../engine/harness'; // first: it prepares jest to load n8n-core
import { readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { LoggerProxy } from 'n8n-workflow';

import type { EngineRun } from '../engine/harness';
import { readPromptFromPng, type RelaySimulator } from '../../relay-sim';
import type { CollectReport } from '../../src/collect/report';
import { resetProcessWide } from '../../src/processWide';
import { getStore } from '../../src/store';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { mountTmpfs, type Tmpfs } from '../support/tmpfs';
import { runPromptBatch } from './setup';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 20, imageSize: { width: 8, height: 8 } }, (started) => (sim = started));

const warn = jest.fn();
beforeAll(() => LoggerProxy.init({ error: jest.fn(), warn, info: jest.fn(), debug: jest.fn() }));
beforeEach(() => warn.mockClear());

const report = (run: EngineRun) => run.outputOf('Collect', 1)[0].json as unknown as CollectReport;
const slots = (run: EngineRun) => run.outputOf('Collect', 0);
const newProcess = () => resetProcessWide();
/** Every file the journal keeps its records in (whatever its layout; a temp file renamed away meanwhile is not one). */
const journalFiles = () => {
	const dir = getStore().journal.cacheDir;
	return (readdirSync(dir, { recursive: true }) as string[])
		.map((name) => path.join(dir, name))
		.filter((file) => statSync(file, { throwIfNoEntry: false })?.isFile() === true && !file.endsWith('.id'));
};

const prompts = ['a fox', 'a badger', 'an otter'];
/** The batch's background prune is over (joined) before a test damages the files: its compaction would rewrite them from what it read before. */
const settled = async () => await getStore().prune();

it('journal files cut short (a crash, a full disk): intact stored results are still served, none refused "maybe paid"', async () => {
	await runPromptBatch(sim, prompts);
	await settled();
	for (const file of journalFiles()) truncateSync(file, Math.floor(readFileSync(file).length / 3));
	newProcess();
	const again = await runPromptBatch(sim, prompts);
	expect(slots(again).map((item) => [item.json.status, item.json.cached])).toEqual(prompts.map(() => ['success', true]));
	expect(sim.log.submits).toHaveLength(3);
	const pngs = await Promise.all(slots(again).map(async (item) => await again.binaryBuffer(item, 'data')));
	expect(pngs.map((png) => readPromptFromPng(png))).toEqual(prompts);
});

it('journal records overwritten with garbage: stored results are served, and the report says the journal is damaged', async () => {
	await runPromptBatch(sim, prompts);
	await settled();
	for (const file of journalFiles()) writeFileSync(file, readFileSync(file, 'utf8').replace(/"state":"stored"/g, '"state":"st0red"'));
	newProcess();
	await getStore().prune(); // what a new process does first: the damaged lines are found (and dropped)
	const again = await runPromptBatch(sim, prompts);
	expect(report(again)).toMatchObject({ cached: 3, allSucceeded: true });
	expect(sim.log.submits).toHaveLength(3);
	// How many damaged lines one file holds depends on how the journal laid out and compacted the three records (CI once saw 2).
	expect(report(again).warnings).toEqual([expect.stringMatching(/job journal at .* is damaged: [1-9]\d* damaged line\(s\) were dropped from .*may be sent \(and paid\) again/)]);
	// Once for this store (the earlier test's store, dropped by newProcess, may still log from its background prune).
	const dir = getStore().config.dir;
	expect(warn.mock.calls.filter(([m]) => String(m).includes('is damaged') && String(m).includes(dir))).toHaveLength(1);
});

it('a lost journal (deleted): stored results are still served, and the report warns that jobs running before are unknown now', async () => {
	await runPromptBatch(sim, prompts);
	rmSync(getStore().journal.cacheDir, { recursive: true, force: true });
	newProcess();
	const again = await runPromptBatch(sim, prompts);
	expect(report(again)).toMatchObject({ cached: 3, allSucceeded: true });
	expect(sim.log.submits).toHaveLength(3);
	const newSlot = await runPromptBatch(sim, ['a stoat']);
	expect(report(newSlot).warnings).toEqual([expect.stringMatching(/job journal at .* was lost .*a re-run sends them again \(and pays again\)/)]);
});

describe('on a real small file system', () => {
	let tmpfs: Tmpfs | undefined;
	afterEach(async () => {
		await resetProcessWide();
		tmpfs?.unmount();
		tmpfs = undefined;
	});

	it('a disk that fills up mid-batch: the image is still delivered, and the report says "disk full" although later small writes worked', async () => {
		tmpfs = mountTmpfs(1024);
		process.env.COMFLY_STORE_DIR = path.join(tmpfs.dir, 'store');
		await newProcess();
		writeFileSync(path.join(tmpfs.dir, 'filler'), Buffer.alloc(1024 * 1024 - 96 * 1024)); // 96 KiB left
		sim.setFault('a heavy', { on: 'download', sizeBytes: 400 * 1024 });
		const run = await runPromptBatch(sim, ['a heavy elk', 'a light wren']);
		expect(slots(run).map((item) => item.json.status)).toEqual(['success', 'success']);
		expect(getStore().health().ok).toBe(true); // the journal's small writes worked after the full disk
		expect(report(run).warnings).toEqual([expect.stringMatching(/could not be used: .* \(disk full\).*It works again since, but results of jobs that ended then were not kept/)]);
		expect(warn.mock.calls.map(([m]) => String(m)).filter((m) => m.includes('disk full'))).toHaveLength(1);
	});

	it('a read-only folder: the log and the report say "read-only file system", never "ENOENT … mkdir"', async () => {
		tmpfs = mountTmpfs(256);
		tmpfs.readOnly(true);
		process.env.COMFLY_STORE_DIR = path.join(tmpfs.dir, 'store');
		await newProcess();
		const run = await runPromptBatch(sim, ['a gull']);
		expect(slots(run)[0].json.status).toBe('success');
		const logged = warn.mock.calls.map(([m]) => String(m)).filter((m) => m.includes('result store'));
		expect(logged).toEqual([expect.stringMatching(/could not be used: .*\(read-only file system\): cannot create .* is on a read-only file system/)]);
		expect(logged[0]).not.toMatch(/ENOENT/);
		expect(report(run).warnings).toEqual([expect.stringMatching(/\(read-only file system\)/)]);
		expect(report(run).warnings?.[0]).not.toMatch(/ENOENT/);
	});
});
