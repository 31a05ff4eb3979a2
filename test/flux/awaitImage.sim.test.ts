/**
 * The seams for a durable job journal (a submit step's onSent / onAccepted around the paid POST), and
 * awaitImage, which re-attaches to an upstream task submitted earlier (generateImage is
 * submit + awaitImage under one timeout).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { makePromptPng, readPromptFromPng, RelaySimulator } from '../../relay-sim';
import { awaitImage, generateImage, type FluxTask } from '../../src/flux';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { FAST, credsFor, failureOf, generate, requestFor, submitsFor, tasksFor, uniquePrompt, waitFor } from './helpers';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 10 }, (started) => (sim = started));

describe.each(['relay', 'bfl'] as const)('submit steps (%s)', (style) => {
	it('onSent comes right before each POST, onAccepted once with the acknowledged task', async () => {
		const prompt = uniquePrompt(`hooks (${style})`);
		sim.setFault(prompt, { on: 'submit', status: 429, times: 1 });
		const events: string[] = [];
		const result = await generate(sim, prompt, style, {
			steps: [
				{
					onSent: () => events.push(`submitting (server had ${submitsFor(sim, prompt)})`),
					onAccepted: (task) => events.push(`submitted ${task.taskId} (server had ${submitsFor(sim, prompt)})`),
				},
			],
		});
		expect(events).toEqual(['submitting (server had 0)', 'submitting (server had 1)', `submitted ${result.taskId} (server had 2)`]);
	});

	it('onAccepted carries the task id (and the BFL polling_url), enough to re-attach', async () => {
		const prompt = uniquePrompt(`task shape (${style})`);
		let task: FluxTask | undefined;
		await generate(sim, prompt, style, { steps: [{ onAccepted: (t) => (task = t) }] });
		expect(task?.taskId).toBe(tasksFor(sim, prompt)[0]);
		if (style === 'bfl') expect(task?.pollingUrl).toMatch(/\/v1\/get_result\?id=/);
	});

	it('faulty steps do not break the job', async () => {
		const result = await generate(sim, uniquePrompt(`throwing hooks (${style})`), style, {
			steps: [
				{
					onSent: () => {
						throw new Error('journal down');
					},
					onAccepted: () => {
						throw new Error('journal down');
					},
				},
			],
		});
		expect(result.buffer.length).toBeGreaterThan(0);
	});
});

describe.each(['relay', 'bfl'] as const)('awaitImage: re-attach to an existing task (%s)', (style) => {
	it('a run cancelled after the submit; a later awaitImage gets the image without submitting again', async () => {
		sim.setLatency(200);
		try {
			const prompt = uniquePrompt(`re-attach (${style})`);
			const ac = new AbortController();
			let task: FluxTask | undefined;
			const first = generate(sim, prompt, style, { signal: ac.signal, steps: [{ onAccepted: (t) => ((task = t), ac.abort()) }] });
			expect((await failureOf(first)).kind).toBe('cancelled');
			const result = await awaitImage(credsFor(sim, style), task!, FAST);
			expect(readPromptFromPng(result.buffer)).toBe(prompt);
			expect(result.taskId).toBe(task!.taskId);
			expect(result.attempts.submit).toBe(0);
			expect(submitsFor(sim, prompt)).toBe(1);
		} finally {
			sim.setLatency(10);
		}
	});

	it('an unknown task → task_not_found, nothing submitted', async () => {
		const err = await failureOf(awaitImage(credsFor(sim, style), { taskId: 'no-such-task' }, FAST));
		expect(err.kind).toBe('task_not_found');
		expect(err.taskId).toBe('no-such-task');
		expect(sim.log.submits).toHaveLength(0);
	});
});

describe('after the acknowledgement the client holds no reference to the request', () => {
	setFlagsFromString('--expose-gc');
	const gc = runInNewContext('gc') as () => void;

	it('a request with an 8 MB base64 reference image can be collected while the job polls', async () => {
		sim.setLatency(60_000);
		try {
			const prompt = uniquePrompt('release payload');
			const big = makePromptPng('reference', { padToBytes: 6 * 1024 * 1024 }).toString('base64');
			let ref: WeakRef<object> | undefined;
			let acknowledged = false;
			const ac = new AbortController();
			const job = (() => {
				const request = requestFor(prompt, { images: [{ kind: 'base64', data: big, mimeType: 'image/png' }] });
				ref = new WeakRef(request);
				return generateImage(credsFor(sim), request, { ...FAST, timeoutMs: 60_000, signal: ac.signal, steps: [{ onAccepted: () => (acknowledged = true) }] });
			})();
			await waitFor(() => acknowledged && (sim.log.pollsByTask.get(tasksFor(sim, prompt)[0]) ?? 0) >= 2);
			// deref() keeps its target alive until the current job ends: collect in fresh jobs first.
			for (let i = 0; i < 3; i++) {
				await new Promise((resolve) => setImmediate(resolve));
				gc();
			}
			expect(ref!.deref()).toBeUndefined();
			ac.abort();
			expect((await failureOf(job)).kind).toBe('cancelled');
		} finally {
			sim.setLatency(10);
		}
	});
});
