import { readPromptFromPng, RelaySimulator } from '../../relay-sim';
import { RawBody } from '../../relay-sim/http';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { expectRedacted, failureOf, generate, submitsFor, tasksFor, uniquePrompt, waitFor } from './helpers';

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

	it('moderation messages read as sentences', async () => {
		const prompt = uniquePrompt('final moderated wording');
		sim.setFault(prompt, { on: 'poll', finalStatus: 'Request Moderated' });
		const err = await failureOf(generate(sim, prompt, style));
		expect(err.message).toMatch(/^FLUX refused the request in moderation \(Request Moderated\): change the prompt or reference images/);
		expect(err.message).not.toMatch(/FLUX task the request/);
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

describe.each(['relay', 'bfl'] as const)('a 200 poll answer that is not a status (%s): retried like a transient error', (style) => {
	it.each([
		['an HTML page (a proxy)', new RawBody('<html><body>502 Bad Gateway</body></html>')],
		['JSON without "status"', { id: 'x', message: 'try again' }],
	])('%s, twice, then Ready', async (_label, body) => {
		const prompt = uniquePrompt(`poll 200 garbage (${style})`);
		sim.setFault(prompt, { on: 'poll', status: 200, times: 2, body });
		const result = await generate(sim, prompt, style);
		expect(readPromptFromPng(result.buffer)).toBe(prompt);
		expect(sim.log.pollsByTask.get(result.taskId)).toBeGreaterThanOrEqual(3);
		expect(submitsFor(sim, prompt)).toBe(1);
	});

	it('for ever → timeout that names the last problem, one submit', async () => {
		const prompt = uniquePrompt(`poll 200 html forever (${style})`);
		sim.setFault(prompt, { on: 'poll', status: 200, body: new RawBody('<html>maintenance</html>') });
		// 2 s: the submit and a first poll answered fit in it even on a loaded machine (in 300 ms a starved process
		// could still be submitting, and the timeout would name no poll problem).
		const err = await failureOf(generate(sim, prompt, style, { timeoutMs: 2000 }));
		expect(err.kind).toBe('timeout');
		expect(err.message).toMatch(/not JSON/);
		expect(submitsFor(sim, prompt)).toBe(1);
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
			// 2 s: the task is acknowledged well before the timeout even on a loaded machine (it never gets Ready: 60 s).
			const err = await failureOf(generate(sim, prompt, 'relay', { timeoutMs: 2000 }));
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
		// 2 s and no poll rate cap: room for several retries even on a loaded machine (the cap is tested in pollRate.test.ts).
		const err = await failureOf(generate(sim, prompt, 'bfl', { timeoutMs: 2000, testHooks: { pollLimiter: false } }));
		expect(err.kind).toBe('timeout');
		expect(err.message).toMatch(/HTTP 500/);
		expect(sim.log.polls).toBeGreaterThan(2);
	});

	it('a submit still in flight at the job timeout → timeout that says the job may exist upstream', async () => {
		const prompt = uniquePrompt('hang past timeout');
		sim.setFault(prompt, { on: 'submit', hang: true });
		const err = await failureOf(generate(sim, prompt, 'relay', { timeoutMs: 200, testHooks: { requestTimeoutMs: 10_000 } }));
		expect(err.kind).toBe('timeout');
		expect(err.message).toMatch(/may exist upstream/);
		expect(submitsFor(sim, prompt)).toBe(1);
	});
});

describe('abort (waits for the state, then aborts: the job ends as cancelled at once)', () => {
	// The hangs and sleeps here last far longer than the test's own timeout: ending as
	// `cancelled` at all proves the abort cut them short. No wall-clock assertions.
	async function abortWhen(prompt: string, opts: Parameters<typeof generate>[3], ready: (abort: () => void) => Parameters<typeof generate>[3]) {
		const ac = new AbortController();
		const job = generate(sim, prompt, 'relay', { ...opts, ...ready(() => ac.abort()), signal: ac.signal });
		return failureOf(job);
	}

	it('while polling (after the first poll answered)', async () => {
		sim.setLatency(60_000);
		try {
			const prompt = uniquePrompt('abort polling');
			const err = await abortWhen(prompt, { timeoutMs: 120_000 }, (abort) => ({ onAttempt: (n) => n.poll === 2 && abort() }));
			expect(err.kind).toBe('cancelled');
			expect(err.message).toMatch(/cancelled/);
		} finally {
			sim.setLatency(10);
		}
	});

	it('during a long backoff sleep: no poll is sent', async () => {
		sim.setLatency(60_000);
		try {
			const prompt = uniquePrompt('abort sleeping');
			let entered: () => void = () => undefined;
			const sleeping = new Promise<void>((resolve) => (entered = resolve));
			const ac = new AbortController();
			const job = generate(sim, prompt, 'relay', {
				timeoutMs: 120_000,
				signal: ac.signal,
				testHooks: {
					poll: { initialDelayMs: 30_000, maxDelayMs: 30_000, jitter: 0 },
					sleep: (ms, signal) =>
						new Promise<void>((_resolve, reject) => {
							entered();
							signal.addEventListener('abort', () => reject(new Error(`aborted a ${ms} ms sleep`)), { once: true });
						}),
				},
			});
			await sleeping;
			ac.abort();
			const err = await failureOf(job);
			expect(err.kind).toBe('cancelled');
			const [taskId] = tasksFor(sim, prompt);
			expect(sim.log.pollsByTask.get(taskId) ?? 0).toBe(0);
		} finally {
			sim.setLatency(10);
		}
	});

	it('during a hung submit: never re-sent, and says the job may exist upstream', async () => {
		const prompt = uniquePrompt('abort hung submit');
		sim.setFault(prompt, { on: 'submit', hang: true });
		const err = await abortWhen(prompt, { timeoutMs: 120_000, testHooks: { requestTimeoutMs: 60_000 } }, (abort) => ({
			steps: [{ onSent: () => void waitFor(() => submitsFor(sim, prompt) === 1).then(abort) }],
		}));
		expect(err.kind).toBe('cancelled');
		expect(err.message).toMatch(/may exist upstream/);
		expect(submitsFor(sim, prompt)).toBe(1);
	});

	it('during a slow download', async () => {
		const prompt = uniquePrompt('abort slow download');
		sim.setFault(prompt, { on: 'download', slowBytesPerSecond: 10 });
		const started = () => sim.log.downloadsByTask.get(tasksFor(sim, prompt)[0]) === 1;
		const err = await abortWhen(prompt, { timeoutMs: 120_000 }, (abort) => ({
			onAttempt: (n) => n.download === 1 && void waitFor(started).then(abort),
		}));
		expect(err.kind).toBe('cancelled');
		expect(err.message).toMatch(/downloading/);
		expect(sim.log.downloadsByTask.get(tasksFor(sim, prompt)[0])).toBe(1);
	});
});
