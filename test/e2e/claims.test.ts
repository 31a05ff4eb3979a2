/**
 * One paid job, one owner, in a REAL n8n (this package installed by npm pack; `n8n execute` processes) against
 * the relay simulator on 127.0.0.1 and a redis-server of the test's own:
 * (1) Loop Over Items (n8n-nodes-base's splitInBatches v3) feeding 12 identical rows in batches of 6: 12 jobs,
 *     12 different images; a re-run returns the same 12, slot for slot, from the store.
 * (2) two n8n processes starting the same 30-row batch at the same moment on one store folder: 30 paid, every
 *     slot of both right; (3) the same with a store folder each, sharing one redis-server.
 * (4) Redis frozen with SIGSTOP mid-batch: the batch finishes while Redis is still frozen, each job paid once,
 *     and the report says Redis stopped answering.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';

import { ensureN8nInstalled, executeWorkflow, importWorkflows, nodeItems, type ExecuteResult, type N8nHome, type WorkflowJson } from '../../scripts/n8n';
import { readPromptFromPng, type RelaySimulator } from '../../relay-sim';
import { startTestRedis, type TestRedis } from '../support/redisServer';
import { until } from '../support/until';
import { startSimulatedN8n, stopSimulatedN8n, type SimulatedN8n } from './support/simulatedN8n';

const API_KEY = `sim-e2e-${randomBytes(16).toString('hex')}`;
const log = (line: string) => process.stderr.write(`[e2e claims] ${line}\n`);

let e2e: SimulatedN8n | undefined;
let sim: RelaySimulator;
let home: N8nHome;
let redis: TestRedis | undefined;
let credential: { id: string; name: string };
const folders: string[] = [];

beforeAll(async () => {
	await ensureN8nInstalled({ log });
	redis = await startTestRedis();
	// Slow jobs for the concurrent runs (two n8n processes boot in parallel: their jobs overlap however their boots differ).
	const latencyMs = (prompt: string) => (prompt.startsWith('slow') ? 3000 : 50);
	e2e = await startSimulatedN8n({ name: 'claims', apiKey: API_KEY, sim: { latencyMs, imageSize: { width: 8, height: 8 } }, credentialName: 'FLUX claims e2e', store: true, log });
	({ sim, home, credential } = e2e);
}, 20 * 60_000);

afterAll(async () => {
	if (redis?.frozen()) redis.thaw();
	await redis?.stop();
	await stopSimulatedN8n(e2e);
	for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

function outputFolder(name: string): string {
	const dir = path.join(home.outputDir!, name);
	mkdirSync(dir, { recursive: true });
	return dir;
}

function storeFolder(): string {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'flux-e2e-claims-store-'));
	folders.push(dir);
	return dir;
}

/** Start → Rows (a Code node: one item per prompt) → [Loop Over Items] → Submit → Collect → Write Images (→ the loop). */
function batchWorkflow(name: string, prompts: string[], folder: string, loopBatch?: number): WorkflowJson {
	const node = (id: string, nodeName: string, type: string, typeVersion: number, parameters: Record<string, unknown>, x: number, extra: Record<string, unknown> = {}) => ({
		id, name: nodeName, type, typeVersion, position: [x, 0], parameters, ...extra,
	});
	const rows = `return ${JSON.stringify(prompts)}.map((prompt) => ({ json: { prompt } }));`;
	const loop = loopBatch !== undefined;
	const main = (to: string) => ({ main: [[{ node: to, type: 'main', index: 0 }]] });
	return {
		name,
		active: false,
		nodes: [
			node('start', 'Start', 'n8n-nodes-base.manualTrigger', 1, {}, 0),
			node('rows', 'Rows', 'n8n-nodes-base.code', 2, { jsCode: rows }, 200),
			...(loop ? [node('loop', 'Loop', 'n8n-nodes-base.splitInBatches', 3, { batchSize: loopBatch, options: {} }, 400)] : []),
			node('submit', 'Submit', home.nodeType('fluxConcurrentSubmit'), 1, { prompt: '={{ $json.prompt }}', seed: 3 }, 600, { credentials: { fluxApi: credential } }),
			node('collect', 'Collect', home.nodeType('concurrentCollect'), 1, { numberInputs: 1 }, 800),
			node('write', 'Write Images', 'n8n-nodes-base.readWriteFile', 1, { operation: 'write', fileName: `=${folder}/{{ $runIndex }}-{{ $binary.data.fileName }}`, dataPropertyName: 'data', options: {} }, 1000),
		],
		connections: {
			Start: main('Rows'),
			Rows: main(loop ? 'Loop' : 'Submit'),
			...(loop ? { Loop: { main: [[], [{ node: 'Submit', type: 'main', index: 0 }]] } } : {}),
			Submit: main('Collect'),
			Collect: main('Write Images'),
			...(loop ? { 'Write Images': main('Loop') } : {}),
		},
		settings: { executionOrder: 'v1' },
	} as WorkflowJson;
}

function expectOk(result: ExecuteResult): void {
	if (!result.ok) throw new Error(`n8n run failed (exit ${result.exitCode}): ${(result.stdout + result.stderr).split('\n').slice(-40).join('\n')}`);
}

/** Every Collect slot of every run of the node, in order: [taskId, cached, status]. */
function collected(result: ExecuteResult): Array<[unknown, unknown, unknown]> {
	const out: Array<[unknown, unknown, unknown]> = [];
	for (let runIndex = 0; (result.runData?.Collect ?? [])[runIndex] !== undefined; runIndex++) {
		for (const { json } of nodeItems(result, 'Collect', runIndex, 0)) out.push([json.taskId, json.cached, json.status]);
	}
	return out;
}

const report = (result: ExecuteResult) => nodeItems(result, 'Collect', 0, 1)[0]?.json as { warnings?: string[]; counts?: Record<string, number> } | undefined;

/** The prompts of the images a run wrote, slot order (one batch: run index 0). */
function writtenPrompts(folder: string, count: number): Array<string | undefined> {
	return Array.from({ length: count }, (_, i) => readPromptFromPng(readFileSync(path.join(folder, `0-slot-${String(i + 1).padStart(2, '0')}.png`))));
}

function expectEachPaidOnce(prompts: string[]): void {
	const accepted = (prompt: string) => sim.log.submits.filter((s) => s.prompt === prompt && s.status === 200).length;
	expect(prompts.map((prompt) => [prompt, accepted(prompt)])).toEqual(prompts.map((prompt) => [prompt, 1]));
}

describe('(1) Loop Over Items with identical rows', () => {
	it('12 identical rows in batches of 6: 12 jobs, 12 different images; a re-run returns the same 12 in order, from the store', async () => {
		const prompts = Array(12).fill('loop: a paper lantern');
		const [first, again] = await importWorkflows(home, [batchWorkflow('claims loop', prompts, outputFolder('loop-1'), 6), batchWorkflow('claims loop again', prompts, outputFolder('loop-2'), 6)]);
		sim.reset();
		const run1 = await executeWorkflow(home, first);
		expectOk(run1);
		const slots = collected(run1);
		expect(slots).toHaveLength(12);
		expect(new Set(slots.map(([task]) => task)).size).toBe(12);
		expect(slots.map(([, cached, status]) => [cached, status])).toEqual(Array(12).fill([false, 'success']));
		expect(sim.log.submits).toHaveLength(12);

		const run2 = await executeWorkflow(home, again);
		expectOk(run2);
		expect(collected(run2)).toEqual(slots.map(([task]) => [task, true, 'success']));
		expect(sim.log.submits).toHaveLength(12);
	});
});

describe('two n8n processes start the same 30-row batch at the same moment', () => {
	const prompts = (name: string) => Array.from({ length: 30 }, (_, i) => `slow ${name} ${i}`);

	async function runTwice(name: string, env: [Record<string, string>, Record<string, string>]) {
		const batch = prompts(name);
		const dirs = [outputFolder(`${name}-a`), outputFolder(`${name}-b`)];
		const ids = await importWorkflows(home, [batchWorkflow(`${name} a`, batch, dirs[0]), batchWorkflow(`${name} b`, batch, dirs[1])]);
		sim.reset();
		const [a, b] = await Promise.all([executeWorkflow(home, ids[0], { env: env[0] }), executeWorkflow(home, ids[1], { env: env[1] })]);
		expectOk(a);
		expectOk(b);
		for (const [result, dir] of [[a, dirs[0]], [b, dirs[1]]] as const) {
			expect(collected(result).map(([, , status]) => status)).toEqual(Array(30).fill('success'));
			expect(writtenPrompts(dir, 30)).toEqual(batch); // every slot its own, right image
		}
		expectEachPaidOnce(batch);
		expect(sim.log.submits.filter((s) => s.status === 200)).toHaveLength(30);
		log(`${name}: ${sim.log.submits.length} submits; cached in a/b: ${[a, b].map((r) => collected(r).filter(([, cached]) => cached).length).join('/')}`);
	}

	it('(2) one shared store folder: 30 paid, both runs deliver all 30 right', async () => {
		const shared = { COMFLY_STORE_DIR: storeFolder() };
		await runTwice('shared folder', [shared, shared]);
	});

	it('(3) a store folder each, sharing one redis-server: 30 paid, both runs deliver all 30 right', async () => {
		const withRedis = () => ({ COMFLY_STORE_DIR: storeFolder(), COMFLY_REDIS_URL: redis!.url });
		await runTwice('two folders', [withRedis(), withRedis()]);
	});
});

describe('(4) Redis frozen (SIGSTOP) mid-batch', () => {
	it('the batch finishes while Redis is still frozen: 30 delivered, each paid once, the report says Redis stopped answering', async () => {
		const batch = Array.from({ length: 30 }, (_, i) => `slow frozen ${i}`);
		const dir = outputFolder('frozen');
		const [id] = await importWorkflows(home, [batchWorkflow('claims frozen redis', batch, dir)]);
		sim.reset();
		const running = executeWorkflow(home, id, { env: { COMFLY_STORE_DIR: storeFolder(), COMFLY_REDIS_URL: redis!.url } });
		await until(() => sim.log.submits.length > 0, 'the batch is sending its jobs', { limitMs: 120_000, everyMs: 20 });
		redis!.freeze();
		try {
			const result = await running;
			expect(redis!.frozen()).toBe(true); // it finished while Redis was frozen
			expectOk(result);
			expect(writtenPrompts(dir, 30)).toEqual(batch);
			expectEachPaidOnce(batch);
			expect(report(result)?.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/Redis at 127\.0\.0\.1:\d+ stopped answering/)]));
		} finally {
			redis!.thaw();
		}
	});
});
