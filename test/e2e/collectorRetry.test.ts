/**
 * The result store end to end: n8n's "Retry execution" of the collector after a restart, in a REAL
 * n8n 2.0.3 (`n8n start`, this package installed as a community package), the relay simulator on 127.0.0.1,
 * the result store in a temp folder (COMFLY_STORE_DIR).
 *
 * Process A runs Start → 3 Submits → Collect (with its optional FLUX credential) → Write Files through
 * `POST /rest/workflows/:id/run`, the workflow saving its progress (settings.saveExecutionProgress), and is
 * killed with SIGKILL while the collector waits for jobs still generating upstream. Process B (same user
 * folder, same store) retries that execution through `POST /rest/executions/:id/retry`: n8n starts again
 * at the collector with the saved Submit outputs, whose task items point at jobs B's pool never saw; the
 * collector finds them in the journal and re-attaches to the upstream tasks: no new job, no prompt paid twice.
 *
 * n8n facts relied on (2.0.3): a node's progress is saved after its children are put on the execution
 * stack (WorkflowExecute runs `nodeExecuteAfter` after `addNodeToBeExecuted`); on start, n8n marks the
 * unfinished execution crashed and adds a crashed run for the node that was running (execution recovery);
 * the retry drops that crashed run and starts from the saved stack, and its answer comes once the retried
 * execution has finished (`getPostExecutePromise`). Needs `npm run build` first.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

import { parse as parseFlatted } from 'flatted';

import { ensureN8nInstalled, type N8nHome, type WorkflowJson } from '../../scripts/n8n';
import { fanInWorkflow } from './fanInWorkflow';
import { N8nRestSession, startN8nServer, type N8nServer } from '../../scripts/n8n/n8nServer';
import { readPromptFromPng, type RelaySimulator } from '../../relay-sim';
import { until } from '../support/until';
import { startSimulatedN8n, stopSimulatedN8n, type SimulatedN8n } from './support/simulatedN8n';
import { parseFluxParameters, toFluxImageRequest } from '../../src/fluxN8n/fluxParameters';
import { fluxJobIdentity } from '../../src/fluxN8n/fluxJobKey';
import { readStoreConfig } from '../../src/config';
import { openStore, type Store } from '../../src/store';

const API_KEY = `sim-e2e-${randomBytes(16).toString('hex')}`;
const log = (line: string) => process.stderr.write(`[e2e collector retry] ${line}\n`);
/** Long enough that the jobs are still generating when process A is killed. */
const LATENCY_MS = 15_000;
const OWNER = { email: 'owner@example.com', firstName: 'Test', lastName: 'Owner', password: 'Owner-password-1' };
/** How long a wait for a state in n8n may take, and how often it looks. */
const WAIT = { limitMs: 120_000, everyMs: 100 };
const PROMPTS = ['retry: a lantern', 'retry: a compass', 'retry: a sextant'];

let e2e: SimulatedN8n | undefined;
let sim: RelaySimulator;
let home: N8nHome | undefined;
const servers: N8nServer[] = [];
let store: Store;
let credential: { id: string; name: string };

beforeAll(async () => {
	await ensureN8nInstalled({ log });
	e2e = await startSimulatedN8n({ name: 'retry', apiKey: API_KEY, sim: { latencyMs: LATENCY_MS }, credentialName: 'FLUX retry e2e', store: true, log });
	({ sim, home, credential } = e2e);
	store = openStore(readStoreConfig({ COMFLY_STORE_DIR: e2e.storeDir }, log));
}, 20 * 60_000);

afterAll(async () => {
	for (const server of servers) await server.stop();
	await stopSimulatedN8n(e2e);
});

/** The fan-in workflow with the FLUX credential on the collector, and n8n keeping the run data a retry needs. */
function retryWorkflow(folder: string): WorkflowJson {
	return fanInWorkflow({
		name: 'collector retry',
		prompts: PROMPTS,
		seed: 0,
		folder,
		home: home!,
		credential,
		collectorCredential: true,
		settings: { executionOrder: 'v1', saveExecutionProgress: true, saveManualExecutions: true, saveDataErrorExecution: 'all' },
	});
}


async function startServer(): Promise<N8nServer> {
	const server = await startN8nServer(home!, { log });
	servers.push(server);
	return server;
}

function expectStatus(answer: { status: number; body: unknown }, what: string): void {
	if (answer.status !== 200) throw new Error(`${what} answered HTTP ${answer.status}: ${JSON.stringify(answer.body).slice(0, 1500)}`);
}

interface RunDataLike {
	resultData: { runData: Record<string, Array<{ data?: { main: Array<Array<{ json: Record<string, unknown> }> | null> } }>> };
	executionData?: { nodeExecutionStack: Array<{ node: { name: string } }> };
}

/** n8n keeps run data as a `flatted` string in REST answers of stored executions. */
const runDataOf = (data: unknown): RunDataLike => (typeof data === 'string' ? (parseFlatted(data) as RunDataLike) : (data as RunDataLike));

describe("n8n's Retry execution of the collector after a restart", () => {
	it('re-attaches to the jobs still generating upstream: every image in slot order, no prompt paid twice', async () => {
		const images = path.join(home!.outputDir!, 'retried');
		mkdirSync(images, { recursive: true });
		const creds = { apiStyle: 'relay' as const, baseUrl: sim.url, apiKey: API_KEY };
		const keys = PROMPTS.map((prompt) => fluxJobIdentity({}, creds, toFluxImageRequest(parseFluxParameters({ prompt, seed: 0 })), 0).key);

		// Process A: run the workflow, kill it while the collector waits.
		const a = await startServer();
		const sessionA = new N8nRestSession(a.url);
		await sessionA.setUpOwner(OWNER);
		const created = await sessionA.request<{ id: string }>('POST', '/rest/workflows', retryWorkflow(images));
		expectStatus(created, 'creating the workflow');
		const workflowId = created.data.id;
		const started = await sessionA.request<{ executionId?: string }>('POST', `/rest/workflows/${workflowId}/run`, {
			workflowData: created.data,
			triggerToStartFrom: { name: 'Start' },
		});
		expectStatus(started, 'running the workflow');
		const executionId = started.data.executionId;
		if (!executionId) throw new Error(`the run did not start an execution: ${JSON.stringify(started.body)}`);
		log(`process A: execution ${executionId}`);

		await until(
			async () => (await Promise.all(keys.map(async (key) => (await store.journal.read(key))?.state))).every((state) => state === 'submitted'),
			'the journal says every job was acknowledged upstream',
			WAIT,
		);
		await until(async () => {
			const saved = await sessionA.request<{ data?: unknown }>('GET', `/rest/executions/${executionId}`);
			if (saved.status !== 200 || saved.data?.data === undefined) return false;
			const stack = runDataOf(saved.data.data).executionData?.nodeExecutionStack ?? [];
			return stack.some((entry) => entry.node.name === 'Collect');
		}, "n8n saved the execution's progress with the collector next on its stack", WAIT);
		expect(sim.log.submits).toHaveLength(3);
		expect(sim.activeTasks()).toBe(3); // still generating upstream
		await a.kill();
		const pollsBeforeRetry = [...sim.log.pollsByTask.values()].reduce((sum, n) => sum + n, 0);

		// Process B: same user folder and store; retry the crashed execution from the collector.
		const b = await startServer();
		const sessionB = new N8nRestSession(b.url);
		expectStatus(await sessionB.request('POST', '/rest/login', { emailOrLdapLoginId: OWNER.email, password: OWNER.password }), 'logging in');
		const retried = await sessionB.request<{ id: string }>(
			'POST',
			`/rest/executions/${executionId}/retry`,
			{ loadWorkflow: false },
		);
		expectStatus(retried, 'retrying the execution');
		// The retry route answers once the run is over; the stored execution is the record to judge.
		let finished: { status?: string; finished?: boolean; retryOf?: string; data?: unknown } = {};
		await until(async () => {
			const answer = await sessionB.request<typeof finished>('GET', `/rest/executions/${retried.data.id}`);
			finished = answer.data ?? {};
			return answer.status === 200 && finished.status !== undefined && !['new', 'running'].includes(finished.status);
		}, 'the retried execution is recorded as ended', WAIT);
		log(`process B: retry ${retried.data.id} of ${executionId} ended ${finished.status}`);
		expect(finished.status).toBe('success');
		expect(finished.finished).toBe(true);
		expect(String(finished.retryOf)).toBe(String(executionId));

		const runData = runDataOf(finished.data).resultData.runData;
		// The retry ran the collector again, not the Submits.
		expect(Object.keys(runData).sort()).toEqual(['Collect', 'Start', 'Submit 1', 'Submit 2', 'Submit 3', 'Write Images'].sort());
		expect(runData.Collect).toHaveLength(1);
		for (const name of ['Submit 1', 'Submit 2', 'Submit 3']) expect(runData[name]).toHaveLength(1); // process A's run, kept
		const slots = (runData.Collect[0].data?.main[0] ?? []).map((item) => item.json);
		expect(slots.map((slot) => slot.status)).toEqual(['success', 'success', 'success']);
		expect(slots.map((slot) => slot.cached)).toEqual([false, false, false]); // re-attached, not read from the store

		const pngs = PROMPTS.map((_, i) => readFileSync(path.join(images, `slot-${String(i + 1).padStart(2, '0')}.png`)));
		expect(pngs.map((png) => readPromptFromPng(png))).toEqual(PROMPTS);
		// No new job: each prompt was sent once, by process A; process B polled the upstream tasks.
		expect(sim.log.submits).toHaveLength(3);
		for (const prompt of PROMPTS) expect(sim.log.submitsByPrompt.get(prompt)).toBe(1);
		expect([...sim.log.pollsByTask.values()].reduce((sum, n) => sum + n, 0)).toBeGreaterThan(pollsBeforeRetry);
		for (const key of keys) expect((await store.journal.read(key))?.state).toBe('stored');
	});
});
