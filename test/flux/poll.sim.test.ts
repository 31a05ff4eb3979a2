import { readPromptFromPng, RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { expectRedacted, failureOf, generate, submitsFor, tasksFor, uniquePrompt } from './helpers';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 10 }, (started) => (sim = started));

describe.each(['relay', 'bfl'] as const)('poll statuses (%s)', (style) => {
	it.each([
		['Request Moderated', 'request_moderated'],
		['Content Moderated', 'content_moderated'],
		['Error', 'generation_error'],
		['Task not found', 'task_not_found'],
	] as const)('%s → %s, not retried, nothing downloaded', async (finalStatus, kind) => {
		const prompt = uniquePrompt(`final ${finalStatus}`);
		sim.setFault(prompt, { on: 'poll', finalStatus });
		const err = await failureOf(generate(sim, prompt, style));
		expect(err.kind).toBe(kind);
		const [taskId] = tasksFor(sim, prompt);
		expect(err.taskId).toBe(taskId);
		expect(submitsFor(sim, prompt)).toBe(1);
		expect(sim.log.downloads).toBe(0);
		expectRedacted(err.message, sim);
	});

	it('Error carries the upstream detail', async () => {
		const prompt = uniquePrompt('final Error detail');
		sim.setFault(prompt, { on: 'poll', finalStatus: 'Error' });
		const err = await failureOf(generate(sim, prompt, style));
		expect(err.message).toMatch(/Simulated generation failure/);
	});

	it.each([
		[400, 'bad_request'],
		[422, 'bad_request'],
		[401, 'auth'],
		[403, 'auth'],
		[402, 'credits'],
		[404, 'task_not_found'],
	] as const)('poll HTTP %i → %s', async (status, kind) => {
		const prompt = uniquePrompt(`poll ${status}`);
		sim.setFault(prompt, { on: 'poll', status });
		const err = await failureOf(generate(sim, prompt, style));
		expect(err.kind).toBe(kind);
		expect(err.statusCode).toBe(status);
		expect(submitsFor(sim, prompt)).toBe(1);
		const [taskId] = tasksFor(sim, prompt);
		expect(sim.log.pollsByTask.get(taskId)).toBe(1);
		if (kind === 'auth') expect(err.message).toMatch(/check the FLUX API credential/);
	});

	it.each([429, 500, 502, 503, 504])('poll HTTP %i → retried with backoff, then Ready', async (status) => {
		const prompt = uniquePrompt(`poll ${status} transient`);
		sim.setFault(prompt, { on: 'poll', status, times: 3 });
		const result = await generate(sim, prompt, style);
		expect(readPromptFromPng(result.buffer)).toBe(prompt);
		expect(submitsFor(sim, prompt)).toBe(1);
		expect(sim.log.pollsByTask.get(result.taskId)).toBeGreaterThanOrEqual(4);
	});
});

describe('polling URLs (BFL)', () => {
	it.each(['evil.example.com', 'localhost', '127.0.0.2'])(
		'a polling_url on %s → forbidden_host, and no request is sent there',
		async (host) => {
			const prompt = uniquePrompt(`foreign polling ${host}`);
			sim.setFault(prompt, { on: 'poll', pollingUrlHost: host });
			const err = await failureOf(generate(sim, prompt, 'bfl'));
			expect(err.kind).toBe('forbidden_host');
			expect(sim.log.pollsByTask.get(tasksFor(sim, prompt)[0]) ?? 0).toBe(0);
			expect(sim.log.foreignHostRequests).toBe(0);
			expect(submitsFor(sim, prompt)).toBe(1);
			expectRedacted(err.message, sim);
		},
	);

	it('relay style ignores an echoed polling_url (it would need a BFL key)', async () => {
		const prompt = uniquePrompt('relay ignores polling url');
		sim.setFault(prompt, { on: 'poll', pollingUrlHost: 'evil.example.com' });
		const result = await generate(sim, prompt, 'relay');
		expect(readPromptFromPng(result.buffer)).toBe(prompt);
		expect(sim.log.unauthorized).toBe(0);
	});
});

describe('job timeout', () => {
	it('a task that never gets Ready → timeout (not a hang)', async () => {
		sim.setLatency(60_000);
		try {
			const prompt = uniquePrompt('slow task');
			const err = await failureOf(generate(sim, prompt, 'relay', { timeoutMs: 300 }));
			expect(err.kind).toBe('timeout');
			expect(err.message).toMatch(/timed out/);
			expect(err.taskId).toBe(tasksFor(sim, prompt)[0]);
			expect(submitsFor(sim, prompt)).toBe(1);
			expectRedacted(err.message, sim);
		} finally {
			sim.setLatency(10);
		}
	});

	it('persistent poll 5xx → retried until the job timeout', async () => {
		const prompt = uniquePrompt('poll 500 forever');
		sim.setFault(prompt, { on: 'poll', status: 500 });
		const err = await failureOf(generate(sim, prompt, 'bfl', { timeoutMs: 300 }));
		expect(err.kind).toBe('timeout');
		expect(err.message).toMatch(/HTTP 500/);
		expect(sim.log.polls).toBeGreaterThan(2);
	});

	it('a submit still in flight at the job timeout → timeout that says the job may exist upstream', async () => {
		const prompt = uniquePrompt('hang past timeout');
		sim.setFault(prompt, { on: 'submit', hang: true });
		const err = await failureOf(generate(sim, prompt, 'relay', { timeoutMs: 200, requestTimeoutMs: 10_000 }));
		expect(err.kind).toBe('timeout');
		expect(err.message).toMatch(/may exist upstream/);
		expect(submitsFor(sim, prompt)).toBe(1);
	});
});

describe('abort', () => {
	async function abortAfter(ms: number, prompt: string, opts: Parameters<typeof generate>[3] = {}) {
		const ac = new AbortController();
		const job = generate(sim, prompt, 'relay', { ...opts, signal: ac.signal });
		await new Promise((r) => setTimeout(r, ms));
		const abortedAt = Date.now();
		ac.abort();
		const err = await failureOf(job);
		return { err, elapsed: Date.now() - abortedAt };
	}

	it('while polling → cancelled within 100 ms', async () => {
		sim.setLatency(60_000);
		try {
			const prompt = uniquePrompt('abort polling');
			const { err, elapsed } = await abortAfter(80, prompt);
			expect(err.kind).toBe('cancelled');
			expect(elapsed).toBeLessThan(100);
			expect(err.message).toMatch(/cancelled/);
		} finally {
			sim.setLatency(10);
		}
	});

	it('during a long backoff sleep → cancelled within 100 ms', async () => {
		sim.setLatency(60_000);
		try {
			const prompt = uniquePrompt('abort sleeping');
			const { err, elapsed } = await abortAfter(50, prompt, {
				poll: { initialDelayMs: 30_000, maxDelayMs: 30_000, jitter: 0 },
			});
			expect(err.kind).toBe('cancelled');
			expect(elapsed).toBeLessThan(100);
			const [taskId] = tasksFor(sim, prompt);
			expect(sim.log.pollsByTask.get(taskId) ?? 0).toBe(0);
		} finally {
			sim.setLatency(10);
		}
	});

	it('during a hung submit → cancelled within 100 ms, never re-sent', async () => {
		const prompt = uniquePrompt('abort hung submit');
		sim.setFault(prompt, { on: 'submit', hang: true });
		const { err, elapsed } = await abortAfter(50, prompt, { requestTimeoutMs: 30_000 });
		expect(err.kind).toBe('cancelled');
		expect(elapsed).toBeLessThan(100);
		expect(err.message).toMatch(/may exist upstream/);
		expect(submitsFor(sim, prompt)).toBe(1);
	});

	it('during a slow download → cancelled within 100 ms', async () => {
		const prompt = uniquePrompt('abort slow download');
		sim.setFault(prompt, { on: 'download', slowBytesPerSecond: 10 });
		const { err, elapsed } = await abortAfter(150, prompt);
		expect(err.kind).toBe('cancelled');
		expect(elapsed).toBeLessThan(100);
		expect(sim.log.downloadsByTask.get(tasksFor(sim, prompt)[0])).toBe(1);
	});
});
