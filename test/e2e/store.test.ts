/**
 * The result store in a REAL n8n 2.0.3 (this package installed by npm pack), each run a new `n8n execute`
 * process against the relay simulator on 127.0.0.1, the result store in a temp folder (COMFLY_STORE_DIR):
 * (1) a second run sends nothing and delivers identical bytes with cached: true; a new seed sends all again;
 * (2) n8n killed with SIGKILL while its jobs generate upstream: the next run re-attaches, every image is
 *     delivered and no prompt is submitted twice.
 * (3) "Retry execution" of only the collector after a restart is not run here: `n8n execute` always runs a
 *     whole workflow from its trigger (it has no "retry from the failed node"); collectorRetry.test.ts runs it
 *     in `n8n start` through n8n's REST retry route.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

import {
	ensureN8nInstalled,
	executeWorkflow,
	getFreePort,
	importWorkflows,
	nodeItems,
	type ExecuteResult,
	type N8nHome,
	type WorkflowJson,
} from '../../scripts/n8n';
import { readPromptFromPng, type RelaySimulator } from '../../relay-sim';
import { fanInWorkflow } from './fanInWorkflow';
import { until } from '../support/until';
import { startSimulatedN8n, stopSimulatedN8n, type SimulatedN8n } from './support/simulatedN8n';
import { parseFluxParameters, toFluxImageRequest } from '../../src/fluxN8n/fluxParameters';
import { fluxJobIdentity } from '../../src/fluxN8n/fluxJobKey';
import { readStoreConfig } from '../../src/config';
import { openStore } from '../../src/store';

const API_KEY = `sim-e2e-${randomBytes(16).toString('hex')}`;
const log = (line: string) => process.stderr.write(`[e2e store] ${line}\n`);
const CRASH_LATENCY_MS = 8_000;

let e2e: SimulatedN8n | undefined;
let sim: RelaySimulator;
let home: N8nHome | undefined;
let storeDir: string;
let credential: { id: string; name: string };

beforeAll(async () => {
	await ensureN8nInstalled({ log });
	const latencyMs = (prompt: string) => (prompt.startsWith('crash') ? CRASH_LATENCY_MS : 50);
	e2e = await startSimulatedN8n({ name: 'store', apiKey: API_KEY, sim: { latencyMs }, credentialName: 'FLUX store e2e', store: true, log });
	({ sim, home, storeDir, credential } = e2e);
}, 20 * 60_000);

afterAll(async () => {
	await stopSimulatedN8n(e2e);
});

function batchWorkflow(name: string, prompts: string[], seed: number, folder: string): WorkflowJson {
	return fanInWorkflow({ name, prompts, seed, folder, home: home!, credential });
}

function folder(name: string): string {
	const dir = path.join(home!.outputDir!, name);
	mkdirSync(dir, { recursive: true });
	return dir;
}

function expectOk(result: ExecuteResult): void {
	if (!result.ok) throw new Error(`n8n run failed (exit ${result.exitCode}): ${(result.stdout + result.stderr).split('\n').slice(-30).join('\n')}`);
}

const slotsOf = (result: ExecuteResult) => nodeItems(result, 'Collect', 0, 0).map((item) => item.json);
const imagesIn = (dir: string, count: number) =>
	Array.from({ length: count }, (_, i) => readFileSync(path.join(dir, `slot-${String(i + 1).padStart(2, '0')}.png`)));

describe('(1) a re-run in a new n8n process is served from the store', () => {
	const prompts = ['store e2e: a lighthouse', 'store e2e: a harbour', 'store e2e: a kite'];

	it('zero new submits, identical bytes, cached: true; a new seed sends every job again', async () => {
		const dirs = { first: folder('first'), second: folder('second'), seeded: folder('seeded') };
		const [first, second, seeded] = await importWorkflows(home!, [
			batchWorkflow('store first', prompts, 0, dirs.first),
			batchWorkflow('store second', prompts, 0, dirs.second),
			batchWorkflow('store seeded', prompts, 7, dirs.seeded),
		]);
		sim.reset();
		const run1 = await executeWorkflow(home!, first);
		expectOk(run1);
		expect(sim.log.submits).toHaveLength(3);
		expect(slotsOf(run1).map((slot) => slot.cached)).toEqual([false, false, false]);

		const run2 = await executeWorkflow(home!, second);
		expectOk(run2);
		expect(sim.log.submits).toHaveLength(3);
		expect(slotsOf(run2).map((slot) => slot.cached)).toEqual([true, true, true]);
		expect(imagesIn(dirs.second, 3)).toEqual(imagesIn(dirs.first, 3));
		expect(imagesIn(dirs.second, 3).map((png) => readPromptFromPng(png))).toEqual(prompts);

		const run3 = await executeWorkflow(home!, seeded);
		expectOk(run3);
		expect(sim.log.submits).toHaveLength(6);
		expect(slotsOf(run3).map((slot) => slot.cached)).toEqual([false, false, false]);
	});
});

/** `n8n execute` as a child of its own process group, so that the test can SIGKILL all of it. */
async function startExecute(workflowId: string) {
	const env = { N8N_RUNNERS_BROKER_PORT: String(await getFreePort()), ...home!.env, REAL_N8N_PARENT_PID: String(process.pid) };
	const child = spawn(process.execPath, ['--require', path.join(home!.dir, 'watchdog.js'), home!.n8nBin, 'execute', `--id=${workflowId}`, '--rawOutput'], {
		cwd: home!.dir,
		env,
		detached: true,
		stdio: 'ignore',
	});
	const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
	return {
		kill: async () => {
			process.kill(-(child.pid ?? 0), 'SIGKILL');
			await exited;
		},
	};
}


describe('(2) n8n killed with SIGKILL while its jobs generate upstream', () => {
	const prompts = ['crash: an owl', 'crash: a heron', 'crash: a wren'];

	it('the next run re-attaches: every image delivered, no prompt submitted twice', async () => {
		const dirs = { killed: folder('killed'), resumed: folder('resumed') };
		const [killed, resumed] = await importWorkflows(home!, [
			batchWorkflow('store killed', prompts, 0, dirs.killed),
			batchWorkflow('store resumed', prompts, 0, dirs.resumed),
		]);
		sim.reset();
		// The keys n8n computes for these jobs, to watch the journal on disk from here.
		const store = openStore(readStoreConfig({ COMFLY_STORE_DIR: storeDir }, log));
		const creds = { apiStyle: 'relay' as const, baseUrl: sim.url, apiKey: API_KEY };
		const keys = prompts.map((prompt) => fluxJobIdentity({}, creds, toFluxImageRequest(parseFluxParameters({ prompt, seed: 0 })), 0).key);

		const n8n = await startExecute(killed);
		await until(
			async () => (await Promise.all(keys.map(async (key) => (await store.journal.read(key))?.state))).every((state) => state === 'submitted'),
			'the journal says every job was acknowledged upstream',
			{ limitMs: 120_000, everyMs: 50 },
		);
		expect(sim.log.submits).toHaveLength(3);
		expect(sim.activeTasks()).toBe(3); // still generating
		await n8n.kill();

		const run = await executeWorkflow(home!, resumed);
		expectOk(run);
		expect(slotsOf(run).map((slot) => slot.status)).toEqual(['success', 'success', 'success']);
		expect(imagesIn(dirs.resumed, 3).map((png) => readPromptFromPng(png))).toEqual(prompts);
		for (const prompt of prompts) expect(sim.log.submitsByPrompt.get(prompt)).toBe(1);
		expect(sim.log.submits).toHaveLength(3);
	});
});
