import { FluxError, generateImage } from '../../src/flux';
import { requestBodyJson, requestPayload } from '../../src/flux/request';
import { sharedReferenceImages } from '../../src/fluxN8n/sharedReferenceImages';
import { createServer, type Socket } from 'node:net';
import { makePromptPng, readPromptFromPng, RelaySimulator, startRelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { credsFor, expectRedacted, failureOf, fakeClock, FAST, fast, generate, requestFor, submitsFor, tasksFor, uniquePrompt, waitFor } from './helpers';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 10 }, (started) => (sim = started));

const MAYBE = /may exist upstream and was not retried to avoid paying twice/;

describe.each(['relay', 'bfl'] as const)('submit HTTP errors (%s)', (style) => {
	it.each([
		[400, 'bad_request'],
		[422, 'bad_request'],
	] as const)('%i → %s with the API message, not retried', async (status, kind) => {
		const prompt = uniquePrompt(`submit ${status}`);
		sim.setFault(prompt, { on: 'submit', status, body: { detail: [{ loc: ['body', 'prompt'], msg: 'prompt is too spicy' }] } });
		const err = await failureOf(generate(sim, prompt, style));
		expect(err.kind).toBe(kind);
		expect(err.statusCode).toBe(status);
		// The field as the editor names it, with BFL's name beside it (the model's declarations say which).
		expect(err.message).toContain('Prompt (prompt): prompt is too spicy');
		expect(submitsFor(sim, prompt)).toBe(1);
		expectRedacted(err.message, sim);
	});

	it('a 422 names each refused field as the editor does (BFL\'s name beside it); a field the editor does not show, by BFL\'s name', async () => {
		const prompt = uniquePrompt('submit 422 fields');
		const detail = [
			{ loc: ['body', 'aspect_ratio'], msg: "Input should be '1:1' or '16:9'" },
			{ loc: ['body', 'safety_tolerance', 0], msg: 'Value error, must be an integer' },
			{ loc: ['body', 'webhook_secret'], msg: 'Extra inputs are not permitted' },
		];
		sim.setFault(prompt, { on: 'submit', status: 422, body: { detail } });
		const err = await failureOf(generate(sim, prompt, style));
		expect(err.kind).toBe('bad_request');
		expect(err.message).toContain("Aspect Ratio (aspect_ratio): Input should be '1:1' or '16:9'; Safety Tolerance (safety_tolerance.0): must be an integer; webhook_secret: Extra inputs are not permitted");
	});

	it('the API message is redacted (URLs and keys inside it are removed)', async () => {
		const prompt = uniquePrompt('submit 400 leaky');
		sim.setFault(prompt, { on: 'submit', status: 400, body: { detail: `bad image https://cdn.example.com/x.png?sig=abc for key ${sim.apiKey}` } });
		const err = await failureOf(generate(sim, prompt, style));
		expect(err.kind).toBe('bad_request');
		expect(err.message).toMatch(/bad image \[URL\] for key \[REDACTED\]/);
		expectRedacted(err.message, sim);
	});

	it.each([401, 403])('%i → auth: "check the FLUX API credential", not retried', async (status) => {
		const prompt = uniquePrompt(`submit ${status}`);
		sim.setFault(prompt, { on: 'submit', status });
		const err = await failureOf(generate(sim, prompt, style));
		expect(err.kind).toBe('auth');
		expect(err.message).toMatch(/check the FLUX API credential/);
		expect(submitsFor(sim, prompt)).toBe(1);
	});

	it('402 → credits, says so, not retried', async () => {
		const prompt = uniquePrompt('submit 402');
		sim.setFault(prompt, { on: 'submit', status: 402 });
		const err = await failureOf(generate(sim, prompt, style));
		expect(err.kind).toBe('credits');
		expect(err.message).toMatch(/out of credits/);
		expect(submitsFor(sim, prompt)).toBe(1);
	});

	it('429 → retried (the task was not created), then succeeds with exactly one task', async () => {
		const prompt = uniquePrompt('submit 429');
		sim.setFault(prompt, { on: 'submit', status: 429, times: 2 });
		const result = await generate(sim, prompt, style);
		expect(readPromptFromPng(result.buffer)).toBe(prompt);
		expect(submitsFor(sim, prompt)).toBe(3);
		expect(result.attempts.submit).toBe(3);
		expect(tasksFor(sim, prompt)).toEqual([result.taskId]);
	});

	it('503 → retried, then succeeds with exactly one task', async () => {
		const prompt = uniquePrompt('submit 503');
		sim.setFault(prompt, { on: 'submit', status: 503, times: 2 });
		const result = await generate(sim, prompt, style);
		expect(submitsFor(sim, prompt)).toBe(3);
		expect(tasksFor(sim, prompt)).toEqual([result.taskId]);
	});

	it.each([500, 502, 504])('%i → maybe_submitted, exactly one submit', async (status) => {
		const prompt = uniquePrompt(`submit ${status}`);
		sim.setFault(prompt, { on: 'submit', status });
		const err = await failureOf(generate(sim, prompt, style));
		expect(err.kind).toBe('maybe_submitted');
		expect(err.statusCode).toBe(status);
		expect(err.message).toMatch(MAYBE);
		expect(submitsFor(sim, prompt)).toBe(1);
		expectRedacted(err.message, sim);
	});

	it('reset after the body was sent → maybe_submitted, exactly one submit', async () => {
		const prompt = uniquePrompt('submit reset');
		sim.setFault(prompt, { on: 'submit', reset: true });
		const err = await failureOf(generate(sim, prompt, style));
		expect(err.kind).toBe('maybe_submitted');
		expect(err.message).toMatch(MAYBE);
		expect(submitsFor(sim, prompt)).toBe(1);
		expect(tasksFor(sim, prompt)).toHaveLength(1); // it did exist upstream
	});

	it('read timeout (hang) → maybe_submitted, exactly one submit', async () => {
		const prompt = uniquePrompt('submit hang');
		sim.setFault(prompt, { on: 'submit', hang: true });
		const err = await failureOf(generate(sim, prompt, style, { testHooks: { requestTimeoutMs: 150 } }));
		expect(err.kind).toBe('maybe_submitted');
		expect(err.code).toBe('UND_ERR_HEADERS_TIMEOUT');
		expect(err.message).toMatch(MAYBE);
		expect(submitsFor(sim, prompt)).toBe(1);
	});

	it('unexpected JSON on 200 (no id) → maybe_submitted, exactly one submit', async () => {
		const prompt = uniquePrompt('submit 200 garbage');
		sim.setFault(prompt, { on: 'submit', status: 200, body: 'surprise', createTask: true });
		const err = await failureOf(generate(sim, prompt, style));
		expect(err.kind).toBe('maybe_submitted');
		expect(err.message).toMatch(MAYBE);
		expect(submitsFor(sim, prompt)).toBe(1);
	});
});

describe('submit retry details', () => {
	it('honours Retry-After seconds on 429', async () => {
		const prompt = uniquePrompt('retry-after');
		sim.setFault(prompt, { on: 'submit', status: 429, times: 1, retryAfter: 1 });
		const clock = fakeClock();
		await generate(sim, prompt, 'relay', {
			testHooks: { now: clock.now, sleep: clock.sleep, submitRetry: { initialDelayMs: 1, maxDelayMs: 1, jitter: 0, maxRetryAfterMs: 5_000, maxAttempts: 3 } },
		});
		expect(sim.log.submits.filter((s) => s.prompt === prompt).map((s) => s.status)).toEqual([429, 200]);
		expect(clock.slept[0]).toBe(1_000); // the wait before the second submit: Retry-After, not the 1 ms backoff
	});

	it('a redirect (HTTP 307) is not followed: upstream_error with an http vs https hint, one submit', async () => {
		const prompt = uniquePrompt('submit 307');
		sim.setFault(prompt, { on: 'submit', status: 307 });
		const err = await failureOf(generate(sim, prompt));
		expect(err.kind).toBe('upstream_error');
		expect(err.message).toMatch(/answered HTTP 307, a redirect: check http vs https/);
		expect(submitsFor(sim, prompt)).toBe(1);
	});

	it('persistent 429 → rate_limited after the attempt cap, no task created', async () => {
		const prompt = uniquePrompt('429 forever');
		sim.setFault(prompt, { on: 'submit', status: 429 });
		const err = await failureOf(generate(sim, prompt));
		expect(err.kind).toBe('rate_limited');
		expect(err.message).toMatch(/not created/);
		expect(submitsFor(sim, prompt)).toBe(5);
		expect(tasksFor(sim, prompt)).toHaveLength(0);
	});

	it("the simulator's active-task cap (429 + Retry-After) is waited out", async () => {
		sim.setMaxActiveTasks(1);
		// The first task stays active for 2.5 s (a task keeps the latency it was created with); the second is
		// submitted once the first exists, so its first submit meets the cap whatever the machine's load, and it
		// honours the simulator's Retry-After (1 s) until the first task is done.
		sim.setLatency(2_500);
		try {
			const prompts = [uniquePrompt('cap one'), uniquePrompt('cap two')];
			const first = generate(sim, prompts[0]);
			await waitFor(() => tasksFor(sim, prompts[0]).length === 1);
			sim.setLatency(10);
			const second = generate(sim, prompts[1], 'relay', { testHooks: { submitRetry: { ...FAST.testHooks.submitRetry, maxRetryAfterMs: 2_000, maxAttempts: 8 } } });
			const results = await Promise.all([first, second]);
			results.forEach((r, i) => expect(readPromptFromPng(r.buffer)).toBe(prompts[i]));
			expect(sim.log.submits.some((s) => s.status === 429)).toBe(true);
			expect(submitsFor(sim, prompts[1])).toBeGreaterThan(1);
			expect(sim.log.tasks.size).toBe(2);
		} finally {
			sim.setMaxActiveTasks(undefined);
			sim.setLatency(10);
		}
	});

	it('a 429 wait that would pass the job timeout fails at once as rate_limited', async () => {
		const prompt = uniquePrompt('429 long wait');
		sim.setFault(prompt, { on: 'submit', status: 429, retryAfter: 120 });
		const err = await failureOf(
			generate(sim, prompt, 'relay', { timeoutMs: 2_000, testHooks: { submitRetry: { maxRetryAfterMs: 60_000, maxAttempts: 5 } } }),
		);
		expect(err.kind).toBe('rate_limited');
		expect(submitsFor(sim, prompt)).toBe(1);
	});
});

async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

describe('connection never opened (ECONNREFUSED) → retried', () => {
	it('a handful of quick retries (seconds, not minutes), then network; nothing was created', async () => {
		const port = await closedPort();
		let attempts = 0;
		const clock = fakeClock();
		const err = await failureOf(
			generate({ ...sim, url: `http://127.0.0.1:${port}` } as RelaySimulator, uniquePrompt('refused'), 'relay', {
				onAttempt: (n) => (attempts = n.total),
				testHooks: {
					now: clock.now,
					sleep: clock.sleep,
					random: () => 0,
					submitRetry: { maxAttempts: 12, initialDelayMs: 1_000, factor: 2, maxDelayMs: 30_000 }, // the defaults
					connectRetry: undefined,
				},
			}),
		);
		expect(err.kind).toBe('network');
		expect(err.message).toMatch(/ECONNREFUSED/);
		expect(err.message).toMatch(/not created/);
		expect(attempts).toBe(5);
		expect(clock.slept).toEqual([250, 500, 1_000, 1_000]); // about 3 s in all, where it used to be ~3.5 minutes
		expect(sim.log.submits).toHaveLength(0);
		expectRedacted(err.message, sim);
	});

	it('keeps retrying until the server comes up, then creates exactly one task', async () => {
		const port = await closedPort();
		const prompt = uniquePrompt('refused then up');
		let late: RelaySimulator | undefined;
		let starting: Promise<RelaySimulator> | undefined;
		try {
			const job = generate({ ...sim, url: `http://127.0.0.1:${port}` } as RelaySimulator, prompt, 'relay', {
				testHooks: { connectRetry: { initialDelayMs: 20, factor: 1, maxDelayMs: 20, jitter: 0, maxAttempts: 200 } },
				onAttempt: (n) => {
					if (n.submit === 3 && !starting) starting = startRelaySimulator({ port, latencyMs: 5 });
				},
			});
			const result = await job;
			late = await starting;
			expect(readPromptFromPng(result.buffer)).toBe(prompt);
			expect(result.attempts.submit).toBeGreaterThanOrEqual(3);
			expect(late!.log.submits).toHaveLength(1);
			expect(late!.log.tasks.size).toBe(1);
		} finally {
			late = late ?? (await starting);
			await late?.close();
		}
	});
});

describe('the submit body shares reference-image bytes', () => {
	it('sends the same JSON as requestBodyJson, with each base64 image as one buffer shared by every job that shares the image', () => {
		const image = Object.freeze({ kind: 'base64' as const, data: Buffer.alloc(3000, 7).toString('base64'), mimeType: 'image/png' });
		const request = (prompt: string) => requestFor(prompt, { images: [{ kind: 'url' as const, url: 'https://example.com/a.png' }, image, image] });
		const one = requestPayload(request('first "quoted" \u0000 prompt'));
		const two = requestPayload(request('second'));
		expect(Buffer.concat([...one.parts]).toString('utf8')).toBe(requestBodyJson(request('first "quoted" \u0000 prompt')));
		expect(one.length).toBe(Buffer.byteLength(requestBodyJson(request('first "quoted" \u0000 prompt'))));
		const shared = one.parts.filter((part) => part.length === image.data.length);
		expect(shared).toHaveLength(2);
		expect(shared[0]).toBe(shared[1]);
		expect(two.parts.find((part) => part.length === image.data.length)).toBe(shared[0]);
	});

	it.each([
		['held back until beforeSend resolved', true],
		['sent at once', false],
	])('a submit refused with 429 is sent again from the one shared copy (%s): both bodies arrive whole and the same', async (_, held) => {
		const prompt = uniquePrompt(`replayed reference ${held ? 'held' : 'direct'}`);
		const png = makePromptPng(prompt, { width: 256, height: 256, padToBytes: 200_003 });
		const url = { kind: 'url' as const, url: 'https://example.com/a.png' };
		const copy = sharedReferenceImages().encode(png, 'image/png');
		sim.setFault(prompt, { on: 'submit', status: 429, times: 1 });
		let hooked = 0;
		const opts = held ? { steps: [{ beforeSend: async () => void (hooked += 1) }] } : {};
		const result = await generateImage(credsFor(sim), requestFor(prompt, { images: [copy, url, copy] }), fast(opts));
		const asString = { kind: 'base64' as const, data: png.toString('base64'), mimeType: 'image/png' };
		const expected = JSON.parse(requestBodyJson(requestFor(prompt, { images: [asString, url, asString] }))) as unknown;
		expect(sim.log.submits.filter((s) => s.prompt === prompt).map((s) => [s.status, s.body])).toEqual([
			[429, expected],
			[200, expected],
		]);
		expect(hooked).toBe(held ? 2 : 0);
		expect(tasksFor(sim, prompt)).toEqual([result.taskId]);
	});
});

describe('beforeSend: awaited right before each submit POST', () => {
	it('runs before every POST, after a 429 wait too: the simulator sees no submit until it resolved', async () => {
		const prompt = uniquePrompt('beforeSend order');
		sim.setFault(prompt, { on: 'submit', status: 429, times: 1 });
		const seenBefore: number[] = [];
		const result = await generate(sim, prompt, 'relay', {
			steps: [
				{
					beforeSend: async () => {
						seenBefore.push(submitsFor(sim, prompt));
					},
				},
			],
		});
		expect(seenBefore).toEqual([0, 1]);
		expect(tasksFor(sim, prompt)).toEqual([result.taskId]);
	});

	it('a rejection stops the submit unsent: the job fails with that error and nothing reaches the API', async () => {
		const prompt = uniquePrompt('beforeSend refusal');
		const refusal = new FluxError('bad_request', 'refused before sending');
		let posted = false;
		const err = await generate(sim, prompt, 'relay', {
			steps: [
				{
					beforeSend: async () => {
						throw refusal;
					},
					onSent: () => (posted = true),
				},
			],
		}).catch((error: unknown) => error);
		expect(err).toBe(refusal);
		expect(posted).toBe(false);
		expect(submitsFor(sim, prompt)).toBe(0);
	});

	it('runs once the connection is up, with nothing of the request written yet: the server has a socket, no request', async () => {
		const prompt = uniquePrompt('beforeSend connected');
		const open: Socket[] = [];
		const server = createServer((socket) => {
			sockets += 1;
			open.push(socket);
			socket.on('data', () => (bytes += 1)); // answers nothing: the test only looks at what arrived before the hook resolved
		});
		let sockets = 0;
		let bytes = 0;
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as { port: number };
		const seen: Array<[number, number]> = [];
		try {
			await failureOf(
				generate({ ...sim, url: `http://127.0.0.1:${port}` } as RelaySimulator, prompt, 'relay', {
					steps: [
						{
							beforeSend: async () => {
								await new Promise((resolve) => setTimeout(resolve, 50)); // the journal's write
								seen.push([sockets, bytes]);
								throw new FluxError('bad_request', 'stop here');
							},
						},
					],
				}),
			);
		} finally {
			for (const socket of open) socket.destroy();
			server.close();
		}
		expect(seen).toEqual([[1, 0]]); // connected, not a byte of the request sent
	});

	it('a connection refused before the hook ran: the hook never runs (nothing to journal), the submit is retried as not created', async () => {
		const port = await closedPort();
		let hooked = 0;
		const clock = fakeClock();
		const err = await failureOf(
			generate({ ...sim, url: `http://127.0.0.1:${port}` } as RelaySimulator, uniquePrompt('refused before the hook'), 'relay', {
				testHooks: { now: clock.now, sleep: clock.sleep, random: () => 0 },
				steps: [{ beforeSend: async () => void (hooked += 1) }],
			}),
		);
		expect(err.kind).toBe('network');
		expect(err.message).toMatch(/not created/);
		expect(hooked).toBe(0);
	});

	it('a job cancelled while the hook waits ends cancelled, unsent', async () => {
		const prompt = uniquePrompt('beforeSend cancel');
		const controller = new AbortController();
		const err = await failureOf(
			generate(sim, prompt, 'relay', {
				signal: controller.signal,
				steps: [{ beforeSend: async () => controller.abort() }],
			}),
		);
		expect(err.kind).toBe('cancelled');
		expect(submitsFor(sim, prompt)).toBe(0);
	});
});
