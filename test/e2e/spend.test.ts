/**
 * Spend control in a REAL n8n (this package installed by npm pack), `n8n execute` against the relay simulator on
 * 127.0.0.1 in BFL style (the simulator charges 4 credits per 1k image and says so in the submit answer):
 * (1) a FLUX API credential with Daily Credit Limit 40, on an account that never ran a job, buys exactly 10 of 30
 *     jobs; the other 20 slots are budget_exceeded and never reach the API; bought slots and the report carry the
 *     cost; the report says what was spent and the limit;
 * (2) a second execution the same day buys nothing;
 * (3) two n8n processes at once, each with a store folder of its own, share the limit through one redis-server:
 *     together they never buy more than it;
 * (4) a node with Max New Jobs per Execution 5, fed 12 rows through Loop Over Items (3 batches), buys 5.
 * Needs `npm run build` first (npm run test:e2e does it).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { ensureN8nInstalled, executeWorkflow, importCredentials, importWorkflows, nodeItems, type ExecuteResult, type N8nHome, type WorkflowJson } from '../../scripts/n8n';
import type { RelaySimulator } from '../../relay-sim';
import { startTestRedis, type TestRedis } from '../support/redisServer';
import { startSimulatedN8n, stopSimulatedN8n, type SimulatedN8n } from './support/simulatedN8n';

const API_KEY = `sim-e2e-${randomBytes(16).toString('hex')}`;
const log = (line: string) => process.stderr.write(`[e2e spend] ${line}\n`);

let e2e: SimulatedN8n | undefined;
let sim: RelaySimulator;
let home: N8nHome;
let redis: TestRedis | undefined;
let limited: { id: string; name: string };
const folders: string[] = [];

beforeAll(async () => {
	await ensureN8nInstalled({ log });
	e2e = await startSimulatedN8n({ name: 'spend', apiKey: API_KEY, sim: { latencyMs: 100, imageSize: { width: 64, height: 64 } }, credentialName: 'FLUX spend e2e (relay)', store: true, log });
	sim = e2e.sim;
	home = e2e.home;
	const [saved] = await importCredentials(home, [
		{ name: 'FLUX with a daily limit', type: 'fluxApi', data: { apiStyle: 'bfl', baseUrl: sim.url, apiKey: API_KEY, dailyCreditLimit: 40 } },
	]);
	limited = { id: String(saved.id), name: saved.name };
}, 20 * 60_000);

afterAll(async () => {
	await stopSimulatedN8n(e2e);
	await redis?.stop();
	for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

const node = (name: string, type: string, parameters: Record<string, unknown>, x: number, extra: Record<string, unknown> = {}) => ({
	id: name.toLowerCase().replace(/\W+/g, '-'),
	name,
	type,
	typeVersion: type === 'n8n-nodes-base.splitInBatches' ? 3 : type === 'n8n-nodes-base.code' ? 2 : 1,
	position: [x, 0],
	parameters,
	...extra,
});

/** Start → Rows (a Code node: `count` prompts) → Submit → Collect (Placeholder). */
function batchWorkflow(name: string, label: string, count: number, credential: { id: string; name: string }): WorkflowJson {
	return {
		name,
		active: false,
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', {}, 0),
			node('Rows', 'n8n-nodes-base.code', { jsCode: `return Array.from({ length: ${count} }, (_, i) => ({ json: { prompt: '${label} ' + (i + 1) } }));` }, 200),
			node('Submit', home.nodeType('fluxConcurrentSubmit'), { prompt: '={{ $json.prompt }}' }, 400, { credentials: { fluxApi: credential } }),
			node('Collect', home.nodeType('concurrentCollect'), { numberInputs: 1, failureMode: 'placeholder' }, 600),
		],
		connections: {
			Start: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
			Rows: { main: [[{ node: 'Submit', type: 'main', index: 0 }]] },
			Submit: { main: [[{ node: 'Collect', type: 'main', index: 0 }]] },
		},
	};
}

function expectOk(result: ExecuteResult): void {
	if (!result.ok) throw new Error(`n8n run failed (exit ${result.exitCode}): ${(result.stdout + result.stderr).split('\n').slice(-30).join('\n')}`);
}

const slotsOf = (result: ExecuteResult, runIndex = 0) => nodeItems(result, 'Collect', runIndex, 0).map((item) => item.json);
const reportOf = (result: ExecuteResult, runIndex = 0) => nodeItems(result, 'Collect', runIndex, 1)[0]?.json;
const acceptedSubmits = () => sim.log.submits.filter((submit) => submit.status === 200);

describe('(1)+(2) Daily Credit Limit 40 at 4 credits a job', () => {
	it('buys exactly 10 of 30; the other 20 are budget_exceeded and never sent; a second execution buys nothing', async () => {
		const [first, second] = await importWorkflows(home, [batchWorkflow('spend first', 'budget e2e', 30, limited), batchWorkflow('spend second', 'budget e2e later', 30, limited)]);
		sim.reset();
		const run1 = await executeWorkflow(home, first);
		expectOk(run1);
		const slots = slotsOf(run1);
		expect(slots).toHaveLength(30);
		const bought = slots.filter((slot) => slot.status === 'success');
		const refused = slots.filter((slot) => slot.status === 'failed');
		expect(bought).toHaveLength(10);
		for (const slot of bought) expect(slot).toMatchObject({ cost: 4, cached: false });
		expect(refused).toHaveLength(20);
		for (const slot of refused) expect(slot).toMatchObject({ errorKind: 'budget_exceeded', cost: 0 });
		expect(String(refused[0].error)).toMatch(/daily credit limit of the FLUX API credential would be passed \(40 credits of 40 .*Raise "Daily Credit Limit"/);
		// Only the bought jobs reached the API, in BFL style.
		expect(sim.log.submits).toHaveLength(10);
		expect(sim.log.submits.every((submit) => submit.style === 'bfl' && submit.status === 200)).toBe(true);
		expect(sim.log.charged).toBe(40);
		expect(reportOf(run1)).toMatchObject({
			total: 30,
			counts: { success: 10, failed: 20 },
			cost: 40,
			spent: { credits: 40, jobs: 10, window: '24h' },
			limits: { dailyCreditLimit: 40, dailyJobLimit: null },
		});

		const run2 = await executeWorkflow(home, second);
		expectOk(run2);
		expect(slotsOf(run2).map((slot) => slot.errorKind)).toEqual(Array(30).fill('budget_exceeded'));
		expect(sim.log.submits).toHaveLength(10);
		expect(reportOf(run2)).toMatchObject({ cost: 0, spent: { credits: 40, jobs: 10 } });
	});
});

describe('(3) two n8n processes sharing the limit through one redis-server', () => {
	it('together they never buy more than the limit', async () => {
		redis = await startTestRedis();
		const [a, b] = await importWorkflows(home, [batchWorkflow('spend redis a', 'shared a', 30, limited), batchWorkflow('spend redis b', 'shared b', 30, limited)]);
		sim.reset();
		const ownStore = () => {
			const dir = mkdtempSync(path.join(tmpdir(), 'flux-e2e-spend-store-'));
			folders.push(dir);
			return dir;
		};
		// Each process has a store folder of its own (nothing shared on disk): only Redis can share the limit. One
		// worker each and 3 s jobs: each process buys one job at a time for half a minute, so their buying overlaps.
		sim.setLatency((prompt) => (prompt.startsWith('shared') ? 3_000 : 100));
		const env = (dir: string) => ({ env: { COMFLY_STORE_DIR: dir, COMFLY_REDIS_URL: redis!.url, COMFLY_IMAGE_CONCURRENCY: '1' } });
		const [runA, runB] = await Promise.all([executeWorkflow(home, a, env(ownStore())), executeWorkflow(home, b, env(ownStore()))]);
		expectOk(runA);
		expectOk(runB);
		const boughtA = slotsOf(runA).filter((slot) => slot.status === 'success').length;
		const boughtB = slotsOf(runB).filter((slot) => slot.status === 'success').length;
		log(`process A bought ${boughtA}, process B bought ${boughtB}`);
		sim.setLatency(100);
		expect(boughtA).toBeGreaterThan(0); // both bought: they raced for the same limit
		expect(boughtB).toBeGreaterThan(0);
		expect(boughtA + boughtB).toBe(10);
		expect(acceptedSubmits()).toHaveLength(10);
		expect(sim.log.submits).toHaveLength(10);
		expect(sim.log.charged).toBe(40);
		for (const run of [runA, runB]) {
			expect(reportOf(run)?.warnings).toBeUndefined();
			expect(reportOf(run)?.spent).toMatchObject({ window: '24h' });
		}
		const spentAfter = [reportOf(runA)?.spent, reportOf(runB)?.spent].map((spent) => (spent as { credits: number }).credits);
		expect(Math.max(...spentAfter)).toBe(40);
	});
});

describe('(4) Max New Jobs per Execution 5, fed 12 rows through Loop Over Items', () => {
	it('buys 5: the node stops at the cap across its runs', async () => {
		const workflow: WorkflowJson = {
			name: 'spend per execution',
			active: false,
			nodes: [
				node('Start', 'n8n-nodes-base.manualTrigger', {}, 0),
				node('Rows', 'n8n-nodes-base.code', { jsCode: "return Array.from({ length: 12 }, (_, i) => ({ json: { prompt: 'loop cap ' + (i + 1) } }));" }, 200),
				node('Loop Over Items', 'n8n-nodes-base.splitInBatches', { batchSize: 4, options: {} }, 400),
				node('Submit', home.nodeType('fluxConcurrentSubmit'), { prompt: '={{ $json.prompt }}', options: { maxNewJobsPerExecution: 5 } }, 600, { credentials: { fluxApi: e2e!.credential } }),
				node('Collect', home.nodeType('concurrentCollect'), { numberInputs: 1, failureMode: 'placeholder' }, 800),
			],
			connections: {
				Start: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
				Rows: { main: [[{ node: 'Loop Over Items', type: 'main', index: 0 }]] },
				'Loop Over Items': { main: [[], [{ node: 'Submit', type: 'main', index: 0 }]] },
				Submit: { main: [[{ node: 'Collect', type: 'main', index: 0 }]] },
				Collect: { main: [[{ node: 'Loop Over Items', type: 'main', index: 0 }]] },
			},
		};
		const [id] = await importWorkflows(home, [workflow]);
		sim.reset();
		const run = await executeWorkflow(home, id);
		expectOk(run);
		expect(run.runData?.['Submit']).toHaveLength(3);
		const slots = [0, 1, 2].flatMap((runIndex) => slotsOf(run, runIndex));
		expect(slots).toHaveLength(12);
		expect(slots.filter((slot) => slot.status === 'success')).toHaveLength(5);
		const refused = slots.filter((slot) => slot.status === 'failed');
		expect(refused).toHaveLength(7);
		for (const slot of refused) {
			expect(slot.errorKind).toBe('budget_exceeded');
			expect(String(slot.error)).toMatch(/node "Submit" may send at most 5 jobs in one execution/);
		}
		expect(sim.log.submits).toHaveLength(5);
	});
});
