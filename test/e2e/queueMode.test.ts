/**
 * Scale-out end to end in a REAL n8n 2.0.3 queue mode: `n8n start` (main: takes the webhook
 * calls and enqueues the executions) plus two `n8n worker` processes and a redis-server of the test's
 * own (n8n's queue, and this package's shared account limit read from n8n's own QUEUE_BULL_REDIS_*
 * settings); the database is the SQLite of the one shared user folder. Six webhook calls of 10 prompts
 * each (Webhook → Split Out → Concurrent Submit → Concurrent Collect → Write) land on both workers: 60
 * jobs, every worker's pool 24 wide (COMFLY_IMAGE_CONCURRENCY=24), against an account capped at 24 at
 * the simulator. Without the shared limit the two workers would send up to 48 at once and meet 429s.
 * Needs `npm run build` first (npm run test:e2e does it).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { promises as fsp, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

import { ensureN8nInstalled, type N8nHome, type WorkflowJson } from '../../scripts/n8n';
import { N8nRestSession } from '../../scripts/n8n/n8nServer';
import { startQueueMode, type QueueModeCluster } from '../../scripts/n8n/queueMode';
import { readPromptFromPng, type RelaySimulator } from '../../relay-sim';
import { startSimulatedN8n, stopSimulatedN8n, type SimulatedN8n } from './support/simulatedN8n';
import { startTestRedis, type TestRedis } from '../support/redisServer';
import { until } from '../support/until';

const API_KEY = `sim-e2e-${randomBytes(16).toString('hex')}`;
const log = (line: string) => process.stderr.write(`[e2e queue mode] ${line}\n`);
const ACCOUNT_CAP = 24;
const BATCHES = 6;
const PER_BATCH = 10;
const WEBHOOK_PATH = `flux-queue-${randomBytes(4).toString('hex')}`;

let e2e: SimulatedN8n | undefined;
let sim: RelaySimulator;
let redis: TestRedis;
let home: N8nHome | undefined;
let cluster: QueueModeCluster | undefined;
let credential: { id: string; name: string };

beforeAll(async () => {
	await ensureN8nInstalled({ log });
	redis = await startTestRedis();
	e2e = await startSimulatedN8n({
		name: 'queue',
		apiKey: API_KEY,
		sim: { latencyMs: 2000, maxActiveTasks: ACCOUNT_CAP, imageSize: { width: 64, height: 64 } },
		credentialName: 'FLUX queue e2e',
		store: true,
		env: { COMFLY_IMAGE_CONCURRENCY: String(ACCOUNT_CAP) },
		log,
	});
	({ sim, home, credential } = e2e);
	cluster = await startQueueMode(home, { redis: { host: '127.0.0.1', port: redis.port }, workers: 2, concurrency: 5, log });
}, 20 * 60_000);

afterAll(async () => {
	await cluster?.stop();
	await stopSimulatedN8n(e2e);
	await redis?.stop();
});

function queueWorkflow(folder: string): WorkflowJson {
	const type = (name: string) => home!.nodeType(name);
	return {
		name: 'queue mode fan-out',
		active: false,
		nodes: [
			{
				id: 'webhook', name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: randomUUID(),
				parameters: { httpMethod: 'POST', path: WEBHOOK_PATH, responseMode: 'onReceived', options: {} },
			},
			{ id: 'split', name: 'Split Out', type: 'n8n-nodes-base.splitOut', typeVersion: 1, position: [200, 0], parameters: { fieldToSplitOut: 'body.prompts', include: 'noOtherFields', options: {} } },
			{ id: 'submit', name: 'Submit', type: type('fluxConcurrentSubmit'), typeVersion: 1, position: [400, 0], parameters: { prompt: '={{ $json.prompt }}', seed: 0 }, credentials: { fluxApi: credential } },
			{ id: 'collect', name: 'Collect', type: type('concurrentCollect'), typeVersion: 1, position: [600, 0], parameters: { numberInputs: 1 } },
			{
				id: 'write', name: 'Write Images', type: 'n8n-nodes-base.readWriteFile', typeVersion: 1, position: [800, 0],
				parameters: { operation: 'write', fileName: `=${folder}/{{ $execution.id }}-{{ $binary.data.fileName }}`, dataPropertyName: 'data', options: {} },
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Split Out', type: 'main', index: 0 }]] },
			'Split Out': { main: [[{ node: 'Submit', type: 'main', index: 0 }]] },
			Submit: { main: [[{ node: 'Collect', type: 'main', index: 0 }]] },
			Collect: { main: [[{ node: 'Write Images', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1', saveDataSuccessExecution: 'all', saveDataErrorExecution: 'all' },
	} as WorkflowJson;
}


const promptOf = (batch: number, job: number) => `queue b${batch} job ${job}`;

/** Posts one batch to the production webhook (registration may lag activation a moment: 404 is retried). */
async function postBatch(url: string, batch: number): Promise<void> {
	const body = JSON.stringify({ prompts: Array.from({ length: PER_BATCH }, (_, i) => ({ prompt: promptOf(batch, i) })) });
	await until(async () => {
		const res = await fetch(`${url}/webhook/${WEBHOOK_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
		await res.text();
		if (res.status !== 200 && res.status !== 404) throw new Error(`webhook answered HTTP ${res.status}`);
		return res.status === 200;
	}, 'the webhook is registered', { limitMs: 30_000, everyMs: 200 });
}

describe('n8n queue mode: main + 2 workers + Redis share one account-wide limit', () => {
	it('60 jobs through webhooks on both workers: peak active <= 24 at the simulator, 0 failed, every image right', async () => {
		const { main, workers } = cluster!;
		const session = new N8nRestSession(main.url);
		await session.setUpOwner();
		const images = path.join(home!.outputDir!, 'queue');
		await fsp.mkdir(images, { recursive: true });
		const created = await session.request<{ id: string; versionId: string }>('POST', '/rest/workflows', queueWorkflow(images));
		if (created.status !== 200) throw new Error(`creating the workflow answered ${created.status}: ${JSON.stringify(created.body).slice(0, 1000)}`);
		const activated = await session.request('POST', `/rest/workflows/${created.data.id}/activate`, { versionId: created.data.versionId });
		if (activated.status !== 200) throw new Error(`activating answered ${activated.status}: ${JSON.stringify(activated.body).slice(0, 1000)}`);

		await Promise.all(Array.from({ length: BATCHES }, (_, b) => postBatch(main.url, b)));
		const finished = () => workers.flatMap((w) => [...w.output().matchAll(/Worker finished execution (\S+)/g)].map((m) => m[1]));
		await until(() => finished().length >= BATCHES, 'every execution finished on a worker', { limitMs: 180_000, everyMs: 200 });

		// Both workers ran executions: the limit really was shared across processes.
		for (const w of workers) expect(w.executionIds().length).toBeGreaterThan(0);
		for (const id of finished()) {
			const execution = await session.request<{ status?: string }>('GET', `/rest/executions/${id}`);
			expect(execution.data?.status).toBe('success');
		}

		expect(sim.log.tasks.size).toBe(BATCHES * PER_BATCH);
		expect(sim.log.peakActiveTasks).toBeLessThanOrEqual(ACCOUNT_CAP);
		expect(sim.log.submits.filter((s) => s.status === 429)).toHaveLength(0); // the shared limit kept the account from refusing
		for (let b = 0; b < BATCHES; b++) for (let i = 0; i < PER_BATCH; i++) expect(sim.log.submitsByPrompt.get(promptOf(b, i))).toBe(1);

		// Every image right: slot k of each execution carries prompt k of one batch.
		const files = readdirSync(images).filter((f) => f.endsWith('.png'));
		expect(files).toHaveLength(BATCHES * PER_BATCH);
		const byExecution = new Map<string, Map<number, string>>();
		for (const file of files) {
			const [, execution, slot] = /^(\S+)-slot-(\d+)\.png$/.exec(file) ?? [];
			const prompts = byExecution.get(execution) ?? new Map<number, string>();
			prompts.set(Number(slot), readPromptFromPng(readFileSync(path.join(images, file))) ?? '');
			byExecution.set(execution, prompts);
		}
		const batchesSeen = new Set<string>();
		for (const prompts of byExecution.values()) {
			const batch = /^queue (b\d+) job 0$/.exec(prompts.get(1) ?? '')?.[1];
			expect(batch).toBeDefined();
			batchesSeen.add(batch!);
			for (let i = 0; i < PER_BATCH; i++) expect(prompts.get(i + 1)).toBe(`queue ${batch} job ${i}`);
		}
		expect(batchesSeen.size).toBe(BATCHES);
		log(`peak active ${sim.log.peakActiveTasks}, executions per worker ${workers.map((w) => w.executionIds().length).join(' + ')}`);
	});
});
