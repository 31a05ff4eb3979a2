import { request } from 'undici';
import { parseArgs } from '../../relay-sim/cli';
import { decodeRgbPng } from '../../relay-sim/pngCodec';
import { PATTERN_KINDS, pictureFor, renderPromptPicture } from '../../relay-sim/promptPicture';
import { until } from '../support/until';
import {
	DEFAULT_API_KEY,
	PNG_SIGNATURE,
	makePromptPng,
	readPngText,
	readPromptFromPng,
	startRelaySimulator,
	verifyPng,
	type RelaySimulator,
} from '../../relay-sim/index';

// JSON answers are read loosely here: the point is the wire format, asserted field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

async function call(
	url: string,
	init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: unknown; headersTimeout?: number } = {},
) {
	const res = await request(url, {
		method: init.method ?? 'GET',
		headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
		body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
		headersTimeout: init.headersTimeout,
	});
	const buffer = Buffer.from(await res.body.arrayBuffer());
	let json: Json | undefined;
	try {
		json = JSON.parse(buffer.toString('utf8')) as Json;
	} catch {
		json = undefined;
	}
	return { status: res.statusCode, headers: res.headers, buffer, json };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const xkey = (key: string) => ({ 'x-key': key });

function client(sim: RelaySimulator) {
	return {
		submitRelay: (prompt: unknown, extra: Json = {}, key = sim.apiKey) =>
			call(`${sim.url}/bfl/v1/flux-3-image`, { method: 'POST', headers: bearer(key), body: { prompt, ...extra } }),
		pollRelay: (id: string, key = sim.apiKey) => call(`${sim.url}/bfl/v1/get_result?id=${id}`, { headers: bearer(key) }),
		submitBfl: (prompt: unknown, extra: Json = {}, key = sim.apiKey) =>
			call(`${sim.url}/v1/flux-3-image`, { method: 'POST', headers: xkey(key), body: { prompt, ...extra } }),
		pollBfl: (pollingUrl: string, key = sim.apiKey) => call(pollingUrl, { headers: xkey(key) }),
		/** submit (relay) and poll until final; returns the last poll body */
		runRelay: async (prompt: string) => {
			const submit = await call(`${sim.url}/bfl/v1/flux-3-image`, {
				method: 'POST',
				headers: bearer(sim.apiKey),
				body: { prompt },
			});
			expect(submit.status).toBe(200);
			const id = submit.json!.id as string;
			for (let i = 0; i < 20; i++) {
				const poll = await call(`${sim.url}/bfl/v1/get_result?id=${id}`, { headers: bearer(sim.apiKey) });
				if (poll.json?.status !== 'Pending') return { id, poll };
			}
			throw new Error('never final');
		},
	};
}

describe('png helpers', () => {
	it('round-trips the prompt (ASCII, Latin-1 and non-Latin-1)', () => {
		for (const prompt of ['a red fox', 'crème brûlée, 50 °C', '雪の中の狐 ☃ 🦊', 'line\nbreak']) {
			const png = makePromptPng(prompt);
			expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
			expect(readPromptFromPng(png)).toBe(prompt);
			expect(verifyPng(png)).toMatchObject({ width: 512, height: 512 });
		}
	});

	it('draws the prompt’s picture with its words: pattern and colours chosen by the prompt, decodable pixel for pixel', () => {
		const prompt = 'a red fox in the snow';
		const { width, height, pixels } = decodeRgbPng(makePromptPng(prompt, { width: 96, height: 64 }));
		expect([width, height]).toEqual([96, 64]);
		expect(pixels.equals(renderPromptPicture(prompt, 96, 64))).toBe(true);
		const kinds = new Set(Array.from({ length: 40 }, (_, i) => pictureFor(`prompt ${i}`).kind));
		expect([...kinds].sort()).toEqual([...PATTERN_KINDS].sort());
	});

	it('a person can tell the demo’s images apart: any two prompts differ in most pixels', () => {
		const prompts = Array.from({ length: 8 }, (_, i) => `a lighthouse at dusk, variation ${i + 1}`);
		const images = prompts.map((prompt) => decodeRgbPng(makePromptPng(prompt, { width: 128, height: 128 })).pixels);
		for (let a = 0; a < images.length; a++) {
			for (let b = a + 1; b < images.length; b++) {
				let differing = 0;
				for (let i = 0; i < images[a].length; i += 3) {
					const distance =
						Math.abs(images[a][i] - images[b][i]) + Math.abs(images[a][i + 1] - images[b][i + 1]) + Math.abs(images[a][i + 2] - images[b][i + 2]);
					if (distance > 60) differing++;
				}
				expect({ pair: [prompts[a], prompts[b]], share: differing / (images[a].length / 3) > 0.5 }).toEqual({
					pair: [prompts[a], prompts[b]],
					share: true,
				});
			}
		}
	});

	it('different prompts give different bytes and colours; the same prompt is deterministic', () => {
		const a = makePromptPng('prompt A');
		const b = makePromptPng('prompt B');
		expect(a.equals(b)).toBe(false);
		expect(makePromptPng('prompt A').equals(a)).toBe(true);
		expect(readPromptFromPng(a)).toBe('prompt A');
		expect(readPromptFromPng(b)).toBe('prompt B');
	});

	it('honours width/height, extra text and padToBytes (4 MB) while staying valid', () => {
		const big = makePromptPng('big one', { padToBytes: 4 * 1024 * 1024, width: 32, height: 16, text: { task: 't-1' } });
		expect(big.length).toBe(4 * 1024 * 1024);
		expect(verifyPng(big)).toMatchObject({ width: 32, height: 16, text: { prompt: 'big one', task: 't-1' } });
		const small = { width: 8, height: 8 };
		for (const size of [300, 5000, 1_000_001]) expect(makePromptPng('x', { ...small, padToBytes: size }).length).toBe(size);
		// smaller than the minimal image: the minimal image
		expect(makePromptPng('x', { ...small, padToBytes: 10 }).length).toBeLessThan(200);
		expect(makePromptPng('x', { padToBytes: 10 }).equals(makePromptPng('x'))).toBe(true);
	});

	it('rejects non-PNG input', () => {
		expect(readPromptFromPng(Buffer.from('<html>nope</html>'))).toBeUndefined();
		expect(readPromptFromPng(Buffer.alloc(0))).toBeUndefined();
		const png = makePromptPng('truncate me');
		expect(() => verifyPng(png.subarray(0, png.length - 5))).toThrow(/truncated|IEND/);
		const corrupt = Buffer.from(png);
		corrupt[40] ^= 0xff;
		expect(() => verifyPng(corrupt)).toThrow(/CRC/);
	});
});

describe('relay simulator (real HTTP server)', () => {
	let sim: RelaySimulator;
	let c: ReturnType<typeof client>;

	beforeAll(async () => {
		// 8×8 images: the slow-download fault below trickles the whole file in under a second
		sim = await startRelaySimulator({ imageSize: { width: 8, height: 8 } });
		c = client(sim);
	});
	afterAll(() => sim.close());
	beforeEach(() => {
		sim.reset();
		sim.setLatency(0);
		sim.setMaxActiveTasks(undefined);
	});

	it('listens on 127.0.0.1 with a random port and the default key', () => {
		expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(sim.port).toBeGreaterThan(0);
		expect(sim.apiKey).toBe(DEFAULT_API_KEY);
	});

	it('relay style: submit, poll, download the PNG of that prompt without credentials', async () => {
		const submit = await c.submitRelay('a lighthouse at dusk', { aspect_ratio: '16:9', resolution: '1k', grounding: true, safety_tolerance: 2 });
		expect(submit.status).toBe(200);
		const id = submit.json!.id as string;
		expect(id).toMatch(/^[0-9a-f-]{36}$/);

		const poll = await c.pollRelay(id);
		expect(poll.status).toBe(200);
		expect(poll.json).toMatchObject({ id, status: 'Ready', result: { sample: expect.any(String) } });
		const sample = new URL(poll.json!.result.sample as string);
		expect(sample.origin).toBe(sim.url);
		expect(sample.pathname).toBe(`/files/${id}.png`);
		expect(sample.searchParams.get('se')).toBeTruthy();
		expect(sample.searchParams.get('sig')).toBeTruthy();

		const download = await call(sample.toString());
		expect(download.status).toBe(200);
		expect(download.headers['content-type']).toBe('image/png');
		expect(readPromptFromPng(download.buffer)).toBe('a lighthouse at dusk');
		expect(readPngText(download.buffer).task).toBe(id);

		const { log } = sim;
		expect(log.submits).toEqual([
			expect.objectContaining({ prompt: 'a lighthouse at dusk', taskId: id, status: 200, style: 'relay' }),
		]);
		expect(log.submits[0].body).toMatchObject({ aspect_ratio: '16:9', resolution: '1k' });
		expect(log.submitsByPrompt.get('a lighthouse at dusk')).toBe(1);
		expect(log.polls).toBe(1);
		expect(log.pollsByTask.get(id)).toBe(1);
		expect(log.downloads).toBe(1);
		expect(log.downloadsByTask.get(id)).toBe(1);
		// The download's span: its request came after the poll that reported Ready, its answer was written out after that.
		await until(() => log.downloadSpans.get(id)?.finishedAt !== undefined, 'the download answer is written out');
		const span = log.downloadSpans.get(id)!;
		expect(span.at).toBeGreaterThanOrEqual(log.tasks.get(id)!.reportedAt!);
		expect(span.finishedAt).toBeGreaterThanOrEqual(span.at);
		expect(log.tasks.get(id)).toMatchObject({ prompt: 'a lighthouse at dusk', finalStatus: 'Ready' });
		expect(log.tasks.get(id)!.readyAt).toBeGreaterThanOrEqual(log.tasks.get(id)!.createdAt);
		expect(log.peakActiveTasks).toBe(1);
		expect(log.credentialOnDownload).toBe(false);
		expect(log.foreignHostRequests).toBe(0);
	});

	it('bfl style: x-key, id + polling_url on the simulator, poll the polling_url', async () => {
		const submit = await c.submitBfl('a glacier', { images: ['https://example.com/a.png', makePromptPng('a reference').toString('base64')] });
		expect(submit.status).toBe(200);
		const { id, polling_url } = submit.json as { id: string; polling_url: string };
		expect(polling_url).toBe(`${sim.url}/v1/get_result?id=${id}`);
		const poll = await c.pollBfl(polling_url);
		expect(poll.json).toMatchObject({ id, status: 'Ready' });
		const download = await call(poll.json!.result.sample as string);
		expect(readPromptFromPng(download.buffer)).toBe('a glacier');
		expect(sim.log.submits[0].style).toBe('bfl');
	});

	it('answers 401 with a JSON error on a missing or wrong credential, never echoing it', async () => {
		const wrong = await c.submitRelay('p', {}, 'wrong-key-123');
		expect(wrong.status).toBe(401);
		expect(wrong.json).toEqual({ detail: expect.any(String) });
		expect(wrong.buffer.toString()).not.toContain('wrong-key-123');

		const missing = await call(`${sim.url}/bfl/v1/flux-3-image`, { method: 'POST', body: { prompt: 'p' } });
		expect(missing.status).toBe(401);
		expect(missing.json!.detail).toMatch(/Bearer/);

		// each style accepts only its own header
		const xkeyOnRelay = await call(`${sim.url}/bfl/v1/get_result?id=x`, { headers: xkey(sim.apiKey) });
		expect(xkeyOnRelay.status).toBe(401);
		const bearerOnBfl = await call(`${sim.url}/v1/flux-3-image`, { method: 'POST', headers: bearer(sim.apiKey), body: { prompt: 'p' } });
		expect(bearerOnBfl.status).toBe(401);
		expect((await c.pollBfl(`${sim.url}/v1/get_result?id=x`, 'nope')).status).toBe(401);

		expect(sim.log.tasks.size).toBe(0);
		expect(sim.log.unauthorized).toBe(5);
		expect(sim.log.submitsByPrompt.get('p')).toBe(3);
	});

	it('serves cheap authenticated credit checks for both styles', async () => {
		expect(await call(`${sim.url}/bfl/v1/credits`, { headers: bearer(sim.apiKey) })).toMatchObject({ status: 200, json: { credits: 1000 } });
		expect(await call(`${sim.url}/v1/credits`, { headers: xkey(sim.apiKey) })).toMatchObject({ status: 200 });
		expect((await call(`${sim.url}/bfl/v1/credits`, { headers: bearer('bad') })).status).toBe(401);
		expect((await call(`${sim.url}/v1/credits`)).status).toBe(401);
		expect(sim.log.creditChecks).toBe(2);
	});

	it('validates the submit body: 422 with FastAPI\'s detail list naming each field', async () => {
		const reference = makePromptPng('a reference').toString('base64');
		const cases: [unknown, RegExp][] = [
			[{}, /^prompt: Field required$/],
			[{ prompt: 42 }, /^prompt: Input should be a valid string$/],
			[{ prompt: '   ' }, /^prompt: Value error, prompt must not be empty$/],
			[{ prompt: 'p', images: Array(11).fill(reference) }, /^images: List should have at most 10 items/],
			[{ prompt: 'p', images: reference }, /^images: Input should be a valid list$/],
			[{ prompt: 'p', images: ['data:image/png;base64,aGk='] }, /^images\.0: .*data: URI/],
			[{ prompt: 'p', resolution: '8k' }, /^resolution: Input should be '768sq', '1k', '1.5k', '2k' or '4k'$/],
			[{ prompt: 'p', safety_tolerance: 9 }, /^safety_tolerance: Input should be less than or equal to 4$/],
			[{ prompt: 'p', aspectRatio: '1:1' }, /^aspectRatio: Extra inputs are not permitted$/],
			[[1, 2], /^Input should be a valid dictionary/],
			['{not json', /JSON decode error/],
		];
		for (const [body, message] of cases) {
			const res = await call(`${sim.url}/bfl/v1/flux-3-image`, { method: 'POST', headers: bearer(sim.apiKey), body });
			expect({ body, status: res.status }).toEqual({ body, status: 422 });
			const [first] = res.json!.detail as { loc: (string | number)[]; msg: string; type: string }[];
			expect({ body, said: `${first.loc.slice(1).join('.')}${first.loc.length > 1 ? ': ' : ''}${first.msg}` }).toEqual({ body, said: expect.stringMatching(message) });
		}
		expect(sim.log.tasks.size).toBe(0);
		// 10 images is fine
		expect((await c.submitRelay('p', { images: Array(10).fill(reference) })).status).toBe(200);
	});

	it('answers 404 JSON for unknown routes and 405 for wrong methods', async () => {
		expect((await call(`${sim.url}/v1/flux-pro`, { headers: xkey(sim.apiKey) })).status).toBe(404);
		expect((await call(`${sim.url}/v1/flux-3-image`, { headers: xkey(sim.apiKey) })).status).toBe(405);
	});

	it('reports an unknown id as Task not found', async () => {
		const poll = await c.pollRelay('no-such-task');
		expect(poll.json).toMatchObject({ id: 'no-such-task', status: 'Task not found' });
	});

	it('latency as a function of the prompt', async () => {
		sim.setLatency((p) => (p.includes('slow') ? 60_000 : 0));
		const slow = await c.submitRelay('slow one');
		const fast = await c.submitRelay('fast one');
		expect((await c.pollRelay(slow.json!.id)).json!.status).toBe('Pending');
		expect((await c.pollRelay(fast.json!.id)).json!.status).toBe('Ready');
		expect(sim.activeTasks()).toBe(1);
		expect(sim.log.tasks.get(slow.json!.id)!.latencyMs).toBe(60_000);
	});

	describe('faults', () => {
		it('submit 429 twice, then accept (Retry-After, no task created)', async () => {
			sim.setFault('busy', { on: 'submit', status: 429, times: 2, retryAfter: 3 });
			const first = await c.submitRelay('busy prompt');
			const second = await c.submitRelay('busy prompt');
			const third = await c.submitRelay('busy prompt');
			expect([first.status, second.status, third.status]).toEqual([429, 429, 200]);
			expect(first.headers['retry-after']).toBe('3');
			expect(sim.log.submitsByPrompt.get('busy prompt')).toBe(3);
			expect(sim.log.tasks.size).toBe(1);
		});

		it('submit 503 creates no task; ambiguous 500/502/504 create one; custom body', async () => {
			sim.setFault('s503', { on: 'submit', status: 503 });
			sim.setFault('s502', { on: 'submit', status: 502, body: { detail: 'bad gateway upstream' } });
			const r503 = await c.submitRelay('s503');
			expect(r503.status).toBe(503);
			expect(r503.headers['retry-after']).toBe('1');
			const r502 = await c.submitBfl('s502');
			expect(r502).toMatchObject({ status: 502, json: { detail: 'bad gateway upstream' } });
			expect(sim.log.submits.map((s) => [s.status, s.taskId !== undefined])).toEqual([
				[503, false],
				[502, true],
			]);
			expect(sim.log.tasks.size).toBe(1);
		});

		it('submit 400/402/422 answer the status with a message', async () => {
			sim.setFault('broke', { on: 'submit', status: 402, body: { detail: 'Insufficient credits' } });
			expect(await c.submitRelay('broke')).toMatchObject({ status: 402, json: { detail: 'Insufficient credits' } });
		});

		it('submit reset: the socket is destroyed after the body was read (task exists upstream)', async () => {
			sim.setFault('reset-me', { on: 'submit', reset: true });
			await expect(c.submitRelay('reset-me')).rejects.toThrow();
			expect(sim.log.submits).toEqual([expect.objectContaining({ prompt: 'reset-me', status: 0, taskId: expect.any(String) })]);
			expect(sim.log.tasks.size).toBe(1);
		});

		it('submit hang: never answered (client read timeout)', async () => {
			sim.setFault('hang-me', { on: 'submit', hang: true });
			// The client gives up on the headers (its own timeout), not on an answer or a closed socket.
			await expect(
				call(`${sim.url}/v1/flux-3-image`, { method: 'POST', headers: xkey(sim.apiKey), body: { prompt: 'hang-me' }, headersTimeout: 300 }),
			).rejects.toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
			expect(sim.log.submits[0]).toMatchObject({ status: -1, taskId: expect.any(String) });
		});

		it('poll 5xx once per task, then Ready; 404 on poll; 429 on poll with Retry-After', async () => {
			sim.setFault('flaky-poll', { on: 'poll', status: 503, times: 1 });
			const a = await c.submitRelay('flaky-poll a');
			expect((await c.pollRelay(a.json!.id)).status).toBe(503);
			expect((await c.pollRelay(a.json!.id)).json!.status).toBe('Ready');
			const b = await c.submitRelay('flaky-poll b'); // times counts per task
			expect((await c.pollRelay(b.json!.id)).status).toBe(503);

			sim.setFault('gone', { on: 'poll', status: 404 });
			const g = await c.submitRelay('gone');
			expect((await c.pollRelay(g.json!.id)).status).toBe(404);

			sim.setFault('limited', { on: 'poll', status: 429, retryAfter: 2 });
			const l = await c.submitRelay('limited');
			expect((await c.pollRelay(l.json!.id)).headers['retry-after']).toBe('2');
			expect(sim.log.pollsByTask.get(a.json!.id)).toBe(2);
		});

		it.each(['Request Moderated', 'Content Moderated', 'Error', 'Task not found'] as const)(
			'final status %s instead of Ready',
			async (finalStatus) => {
				sim.setFault(`final-${finalStatus}`, { on: 'poll', finalStatus });
				const { id, poll } = await c.runRelay(`final-${finalStatus} x`);
				expect(poll.json).toMatchObject({ id, status: finalStatus, result: null });
				expect(sim.log.tasks.get(id)).toMatchObject({ finalStatus });
				expect(sim.log.tasks.get(id)!.readyAt).toBeUndefined();
				expect(sim.activeTasks()).toBe(0);
			},
		);

		it('unknown in-progress statuses (Reasoning, Generating) before Ready', async () => {
			sim.setFault('thinking', { on: 'poll', progressStatuses: ['Reasoning', 'Generating'] });
			const { json } = await c.submitRelay('thinking hard');
			const statuses: string[] = [];
			for (let i = 0; i < 4; i++) statuses.push((await c.pollRelay(json!.id)).json!.status);
			expect(statuses).toEqual(['Reasoning', 'Generating', 'Ready', 'Ready']);
		});

		it('BFL polling_url on another host (same port, still loopback)', async () => {
			sim.setFault('elsewhere', { on: 'poll', pollingUrlHost: 'localhost' });
			const submit = await c.submitBfl('elsewhere');
			const pollingUrl = new URL(submit.json!.polling_url as string);
			expect(pollingUrl.hostname).toBe('localhost');
			expect(pollingUrl.port).toBe(String(sim.port));
		});

		it('truncated download: Content-Length larger than the bytes sent, then the socket closes', async () => {
			sim.setFault('cut', { on: 'download', truncated: true });
			const { poll } = await c.runRelay('cut short');
			const res = await request(poll.json!.result.sample as string);
			expect(res.statusCode).toBe(200);
			expect(Number(res.headers['content-length'])).toBeGreaterThan(50);
			await expect(res.body.arrayBuffer()).rejects.toThrow();
		});

		it('non-image download served as image/png', async () => {
			sim.setFault('html', { on: 'download', nonImage: true });
			const { poll } = await c.runRelay('html page');
			const res = await call(poll.json!.result.sample as string);
			expect(res.status).toBe(200);
			expect(res.headers['content-type']).toBe('image/png');
			expect(res.buffer.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(false);
			expect(readPromptFromPng(res.buffer)).toBeUndefined();
		});

		it('slow download: bytes trickle at the given rate, the image is intact', async () => {
			sim.setFault('trickle', { on: 'download', slowBytesPerSecond: 400 });
			const { poll } = await c.runRelay('trickle');
			// ~113 bytes at 40 bytes per 100 ms tick: the body arrives in pieces, not at once.
			const res = await request(poll.json!.result.sample as string);
			const chunks: Buffer[] = [];
			for await (const chunk of res.body) chunks.push(Buffer.from(chunk as Uint8Array));
			const image = Buffer.concat(chunks);
			expect(chunks.length).toBeGreaterThan(1);
			expect(chunks[0].length).toBeLessThan(image.length);
			expect(readPromptFromPng(image)).toBe('trickle');
		});

		it('oversized download: a valid PNG of the given size, with or without Content-Length', async () => {
			sim.setFault('huge-cl', { on: 'download', sizeBytes: 6 * 1024 * 1024 });
			sim.setFault('huge-chunked', { on: 'download', sizeBytes: 3_000_000, chunked: true });
			const big = await call((await c.runRelay('huge-cl')).poll.json!.result.sample as string);
			expect(big.headers['content-length']).toBe(String(6 * 1024 * 1024));
			expect(big.buffer.length).toBe(6 * 1024 * 1024);
			expect(verifyPng(big.buffer).text.prompt).toBe('huge-cl');
			const chunked = await call((await c.runRelay('huge-chunked')).poll.json!.result.sample as string);
			expect(chunked.headers['content-length']).toBeUndefined();
			expect(chunked.headers['transfer-encoding']).toBe('chunked');
			expect(chunked.buffer.length).toBe(3_000_000);
		});

		it('download redirects: n hops before the file', async () => {
			sim.setFault('hops', { on: 'download', redirects: 3 });
			const { poll } = await c.runRelay('hops');
			let url = poll.json!.result.sample as string;
			const statuses: number[] = [];
			for (;;) {
				const res = await call(url);
				statuses.push(res.status);
				if (res.status !== 302) {
					expect(readPromptFromPng(res.buffer)).toBe('hops');
					break;
				}
				url = new URL(res.headers.location as string, url).toString();
			}
			expect(statuses).toEqual([302, 302, 302, 200]);
			expect(sim.log.redirects).toBe(3);
			expect(sim.log.downloads).toBe(1);
			// fetch follows them
			const fetched = await fetch(poll.json!.result.sample as string);
			expect(fetched.redirected).toBe(true);
			expect(readPromptFromPng(Buffer.from(await fetched.arrayBuffer()))).toBe('hops');
		});

		it('download status once per task, then the file', async () => {
			sim.setFault('blip', { on: 'download', status: 503, times: 1 });
			const { poll } = await c.runRelay('blip');
			const sample = poll.json!.result.sample as string;
			expect((await call(sample)).status).toBe(503);
			expect((await call(sample)).status).toBe(200);
			expect(sim.log.downloadsByTask.get(poll.json!.id)).toBe(2);
		});

		it('faults combine per kind and match by substring; reset() clears them', async () => {
			sim.setFault('combo', { on: 'submit', status: 429, times: 1 });
			sim.setFault('combo', { on: 'poll', progressStatuses: ['Generating'] });
			sim.setFault('combo', { on: 'poll', finalStatus: 'Content Moderated' });
			expect((await c.submitRelay('combo')).status).toBe(429);
			const { id } = (await c.submitRelay('combo')).json as { id: string };
			expect((await c.pollRelay(id)).json!.status).toBe('Generating');
			expect((await c.pollRelay(id)).json!.status).toBe('Content Moderated');
			// same substring and kind replaces
			sim.setFault('combo', { on: 'poll', finalStatus: 'Error' });
			const second = (await c.submitRelay('combo')).json!.id as string;
			await c.pollRelay(second);
			expect((await c.pollRelay(second)).json!.status).toBe('Error');
			sim.reset();
			expect((await c.runRelay('combo')).poll.json!.status).toBe('Ready');
			expect(() => sim.setFault('x', { on: 'poll', status: 1000 })).toThrow(/status/);
		});
	});

	it('records a credential that reaches /files/ and rejects a bad signature', async () => {
		const { poll } = await c.runRelay('leak');
		const sample = poll.json!.result.sample as string;
		expect((await call(sample, { headers: xkey(sim.apiKey) })).status).toBe(200);
		expect(sim.log.credentialOnDownload).toBe(true);
		const forged = new URL(sample);
		forged.searchParams.set('sig', 'forged');
		const res = await call(forged.toString());
		expect(res.status).toBe(403);
		expect(res.buffer.toString()).toContain('AuthenticationFailed');
	});

	it('counts peak concurrent requests', async () => {
		sim.setFault('parallel', { on: 'download', slowBytesPerSecond: 1000 });
		const runs = await Promise.all([1, 2, 3].map((i) => c.runRelay(`parallel ${i}`)));
		await Promise.all(runs.map((r) => call(r.poll.json!.result.sample as string)));
		expect(sim.log.peakConcurrentRequests).toBeGreaterThanOrEqual(3);
	});
});

describe('relay simulator with an injected clock', () => {
	let now = 1_700_000_000_000;
	let sim: RelaySimulator;
	let c: ReturnType<typeof client>;

	beforeAll(async () => {
		sim = await startRelaySimulator({ now: () => now, latencyMs: 1000, maxActiveTasks: 2, retryAfterSeconds: 7, apiKey: 'clock-key' });
		c = client(sim);
	});
	afterAll(() => sim.close());

	it('Pending until the latency elapsed; readyAt is when it became Ready', async () => {
		const { json } = await c.submitBfl('tick');
		const id = json!.id as string;
		now += 400;
		expect((await c.pollBfl(json!.polling_url)).json).toMatchObject({ status: 'Pending', progress: 0.4 });
		now += 5000; // the client noticed late
		expect((await c.pollBfl(json!.polling_url)).json!.status).toBe('Ready');
		const task = sim.log.tasks.get(id)!;
		expect(task.readyAt! - task.createdAt).toBe(1000);
		expect(sim.activeTasks()).toBe(0);
	});

	it('caps active tasks with 429 + Retry-After until one becomes final', async () => {
		sim.reset();
		expect((await c.submitRelay('one')).status).toBe(200);
		expect((await c.submitRelay('two')).status).toBe(200);
		const third = await c.submitRelay('three');
		expect(third.status).toBe(429);
		expect(third.headers['retry-after']).toBe('7');
		expect(third.json!.detail).toMatch(/active tasks/);
		now += 1000; // final by time, even though nobody polled
		expect((await c.submitRelay('three')).status).toBe(200);
		expect(sim.log.peakActiveTasks).toBe(2);
		expect(sim.log.submitsByPrompt.get('three')).toBe(2);
	});

	it('signed sample URLs expire', async () => {
		sim.reset();
		sim.setMaxActiveTasks(undefined);
		const { json } = await c.submitRelay('expiring');
		now += 1000;
		const sample = (await c.pollRelay(json!.id)).json!.result.sample as string;
		expect(new URL(sample).searchParams.get('se')).toBe(new Date(now + 600_000).toISOString());
		expect((await call(sample)).status).toBe(200);
		now += 600_001;
		expect((await call(sample)).status).toBe(403);
	});

	it('seeded jitter is deterministic per prompt and within bounds', async () => {
		const jitter = { min: 100, max: 900, seed: 42 };
		const a = await startRelaySimulator({ latencyMs: jitter });
		const b = await startRelaySimulator({ latencyMs: jitter });
		try {
			const prompts = ['p1', 'p2', 'p3', 'p1', 'p4'];
			const latencies = async (s: RelaySimulator, order: string[]) => {
				for (const p of order) await client(s).submitRelay(p);
				return [...s.log.tasks.values()].map((t) => `${t.prompt}:${t.latencyMs}`).sort();
			};
			const la = await latencies(a, prompts);
			const lb = await latencies(b, [...prompts].reverse());
			expect(la).toEqual(lb);
			for (const t of a.log.tasks.values()) {
				expect(t.latencyMs).toBeGreaterThanOrEqual(100);
				expect(t.latencyMs).toBeLessThanOrEqual(900);
			}
			expect(new Set(la.map((s) => s.split(':')[1])).size).toBeGreaterThan(1);
		} finally {
			await Promise.all([a.close(), b.close()]);
		}
	});
});

describe('relay simulator lifecycle', () => {
	it('imageBytes pads every image (benchmark-size PNGs)', async () => {
		const sim = await startRelaySimulator({ imageBytes: 4 * 1024 * 1024 });
		try {
			const { poll } = await client(sim).runRelay('bench');
			const res = await call(poll.json!.result.sample as string);
			expect(res.buffer.length).toBe(4 * 1024 * 1024);
			expect(verifyPng(res.buffer).text.prompt).toBe('bench');
		} finally {
			await sim.close();
		}
	});

	it('close() ends hanging submits and slow downloads, clears timers, and is idempotent', async () => {
		const sim = await startRelaySimulator({ port: 0 });
		const c = client(sim);
		sim.setFault('hang', { on: 'submit', hang: true });
		sim.setFault('slow', { on: 'download', slowBytesPerSecond: 10 });
		const { poll } = await c.runRelay('slow');
		const settle = (p: Promise<unknown>) => p.then(() => 'answered', (err: unknown) => err);
		const slow = settle(request(poll.json!.result.sample as string).then((r) => r.body.arrayBuffer()));
		const hanging = settle(c.submitRelay('hang'));
		// Wait for the state (the submit hangs, the download trickles), not for a duration.
		while (!(sim.log.submits.some((s) => s.status === -1) && sim.log.downloads > 0)) await new Promise((r) => setImmediate(r));
		// At 10 bytes/s the image would take minutes: both errors below mean close() ended them.
		await Promise.all([sim.close(), sim.close()]);
		expect(await slow).toBeInstanceOf(Error);
		expect(await hanging).toBeInstanceOf(Error);
		await expect(call(`${sim.url}/health`)).rejects.toThrow();
	});

	it('fails to start on a port in use', async () => {
		const sim = await startRelaySimulator();
		try {
			await expect(startRelaySimulator({ port: sim.port })).rejects.toThrow(/EADDRINUSE/);
		} finally {
			await sim.close();
		}
	});
});

describe('relay-sim CLI arguments', () => {
	it('parses the documented flags', () => {
		expect(parseArgs(['--port', '8787', '--latency', '2000'])).toMatchObject({ port: 8787, latencyMs: 2000 });
		expect(
			parseArgs(['--latency=2000', '--jitter', '500', '--seed', 's', '--max-active', '24', '--api-key', 'K', '--image-bytes', '4194304']),
		).toMatchObject({
			latencyMs: { min: 1500, max: 2500, seed: 's' },
			maxActiveTasks: 24,
			apiKey: 'K',
			imageBytes: 4194304,
		});
		expect(parseArgs(['--image-size', '64x32']).imageSize).toEqual({ width: 64, height: 32 });
		expect(parseArgs([]).imageSize).toBeUndefined();
		expect(() => parseArgs(['--image-size', '512'])).toThrow(/--image-size must be WIDTHxHEIGHT/);
		expect(() => parseArgs(['--image-size', '0x10'])).toThrow(/--image-size must be WIDTHxHEIGHT/);
		expect(() => parseArgs(['--latency', 'soon'])).toThrow(/non-negative number/);
		expect(() => parseArgs(['--bogus', '1'])).toThrow(/unknown flag/);
		expect(() => parseArgs(['--port'])).toThrow(/needs a value/);
	});
});
