/**
 * The submit node and the capacity gate, through n8n's real engine: the node
 * returns as soon as its jobs are admitted, waits at the gate when the pool is
 * full, and a cancelled execution stops that wait and leaves nothing behind.
 */
import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import { type RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { poolFor } from '../../src/pool';
import { fluxCredentials, items, nodeTypes, submitNode, until } from './setup';

// Two workers and one pending place: the fourth job waits at the gate.
process.env.COMFLY_IMAGE_CONCURRENCY = '2';
process.env.COMFLY_IMAGE_PENDING = '1';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 60_000 }, (started) => (sim = started));

const nodes = [manualTrigger('Trigger'), submitNode('Submit', { prompt: '={{ "job " + $json.i }}' })];
const connections = connect(['Trigger', 'Submit']);

it('returns task items at once, without waiting for the jobs', async () => {
	const pool = poolFor('image');
	const result = await runWorkflow({ nodes, connections, nodeTypes, credentials: fluxCredentials(sim), triggerItems: items({ i: 1 }, { i: 2 }) });
	expect(result.status).toBe('success');
	const tasks = result.outputOf('Submit');
	expect(tasks.map((task) => task.json)).toEqual([
		expect.objectContaining({ type: 'n8n-nodes-flux-concurrent.task', kind: 'image', model: 'flux-3-image', node: 'Submit' }),
		expect.objectContaining({ type: 'n8n-nodes-flux-concurrent.task', kind: 'image' }),
	]);
	expect(JSON.stringify(tasks)).not.toContain(sim.apiKey);
	// The jobs are still running (latency 60 s): the node did not wait for them.
	expect(pool.stats()).toMatchObject({ running: 2, admitted: 2 });
	pool.cancelJobs(tasks.map((task) => String(task.json.jobId)));
	await Promise.all(tasks.map(async (task) => await pool.wait(String(task.json.jobId))));
	expect(pool.stats()).toMatchObject({ running: 0, admitted: 0 });
});

it('a submit blocked at the full gate stops waiting when the execution is cancelled', async () => {
	const pool = poolFor('image');
	const controller = new AbortController();
	const running = runWorkflow({
		nodes,
		connections,
		nodeTypes,
		credentials: fluxCredentials(sim),
		triggerItems: items({ i: 1 }, { i: 2 }, { i: 3 }, { i: 4 }),
		signal: controller.signal,
	});
	await until(() => pool.stats().waitingAtGate === 1, 'the fourth submit waits at the gate');
	expect(pool.stats()).toMatchObject({ running: 2, queued: 1, waitingAtGate: 1 });
	controller.abort();
	const result = await running;
	expect(result.status).toBe('canceled');
	await until(() => pool.stats().admitted === 0, 'the cancelled jobs have left the pool');
	expect(pool.stats()).toMatchObject({ running: 0, queued: 0, admitted: 0, waitingAtGate: 0 });
	expect(sim.log.tasks.size).toBeLessThanOrEqual(2 + 2); // only jobs a worker took ever reached the API
});

it('bad input in one item is refused before any job is submitted, naming the field and the item', async () => {
	const pool = poolFor('image');
	const completedBefore = pool.stats().completed + pool.stats().cancelled + pool.stats().failed;
	const result = await runWorkflow({
		nodes: [
			manualTrigger('Trigger'),
			submitNode('Submit', { prompt: '={{ "job " + $json.i }}', options: { timeoutMinutes: '={{ $json.i === 2 ? "abc" : 10 }}' } }),
		],
		connections,
		nodeTypes,
		credentials: fluxCredentials(sim),
		triggerItems: items({ i: 0 }, { i: 1 }, { i: 2 }),
	});
	expect(result.status).toBe('error');
	expect(result.errorOf('Submit')?.message).toMatch(/"Options → Timeout \(Minutes\)".*\(got "abc"\) \[item 2\]$/);
	expect(pool.stats()).toMatchObject({ admitted: 0, waitingAtGate: 0 });
	expect(pool.stats().completed + pool.stats().cancelled + pool.stats().failed).toBe(completedBefore);
	expect(sim.log.submits).toHaveLength(0);
});

it.each([
	['a base URL with user:password@', () => ({ baseUrl: `http://user:pw-123456@${new URL(sim.url).host}`, apiKey: sim.apiKey }), /"Base URL".*user name or password/],
	['an API key with CR/LF', () => ({ baseUrl: sim.url, apiKey: `${sim.apiKey}\r\nX-Injected: 1` }), /"API Key".*not allowed in an HTTP header/],
])('%s is refused before the first submit (no job reaches the pool)', async (_what, credential, message) => {
	const pool = poolFor('image');
	const result = await runWorkflow({
		nodes,
		connections,
		nodeTypes,
		credentials: { fluxApi: { apiStyle: 'relay', ...credential() } },
		triggerItems: items({ i: 1 }, { i: 2 }),
	});
	expect(result.status).toBe('error');
	expect(result.errorOf('Submit')?.message).toMatch(message);
	expect(JSON.stringify(result.data)).not.toMatch(/pw-123456/);
	expect(JSON.stringify(result.data)).not.toContain(sim.apiKey);
	expect(pool.stats()).toMatchObject({ admitted: 0 });
	expect(sim.log.submits).toHaveLength(0);
});
