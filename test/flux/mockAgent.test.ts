/**
 * Response shapes the simulator cannot produce (invalid JSON, odd schemes,
 * HTTP-date Retry-After, socket errors), through undici's MockAgent: no socket is opened.
 */
import { MockAgent } from 'undici';
import { tmpdir } from 'node:os';
import { checkFluxCredentials, generateImage, generateVideo, type GenerateOptions } from '../../src/flux';
import { failureOf, fakeClock, fast, requestFor } from './helpers';
import { flux3Video } from '../../src/models';

const ORIGIN = 'http://127.0.0.1:9';
const KEY = 'mock-key-0123456789abcdef';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

let agent: MockAgent;
beforeEach(() => {
	agent = new MockAgent();
	agent.disableNetConnect();
});
afterEach(async () => {
	await agent.close();
});

const pool = () => agent.get(ORIGIN);
const run = (style: 'relay' | 'bfl' = 'relay', extra: GenerateOptions = {}) =>
	generateImage({ apiStyle: style, baseUrl: ORIGIN, apiKey: KEY }, requestFor('mock prompt'), fast({ ...extra, testHooks: { dispatcher: agent, ...extra.testHooks } }));
const json = { headers: { 'content-type': 'application/json' } };

function submitOk(id = 'task-1') {
	pool().intercept({ path: '/bfl/v1/flux-3-image', method: 'POST' }).reply(200, { id }, json);
}
function pollReady(sample: string, id = 'task-1') {
	pool().intercept({ path: `/bfl/v1/get_result?id=${id}`, method: 'GET' }).reply(200, { id, status: 'Ready', result: { sample } }, json);
}

describe('through MockAgent', () => {
	it('invalid JSON on a submit 200 → maybe_submitted, exactly one submit', async () => {
		let submits = 0;
		pool()
			.intercept({ path: '/bfl/v1/flux-3-image', method: 'POST' })
			.reply(() => {
				submits++;
				return { statusCode: 200, data: '{"id": "tas' };
			})
			.persist();
		const err = await failureOf(run());
		expect(err.kind).toBe('maybe_submitted');
		expect(err.message).toMatch(/invalid JSON/);
		expect(submits).toBe(1);
	});

	it('a socket error after the request was sent (UND_ERR_SOCKET) → maybe_submitted, not retried', async () => {
		pool()
			.intercept({ path: '/bfl/v1/flux-3-image', method: 'POST' })
			.replyWithError(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }))
			.persist();
		const attempts: number[] = [];
		const err = await failureOf(run('relay', { onAttempt: (n: { total: number }) => attempts.push(n.total) }));
		expect(err.kind).toBe('maybe_submitted');
		expect(attempts).toEqual([1]);
	});

	it('sends the right auth header per style and never to the download host', async () => {
		const seen: Record<string, unknown>[] = [];
		pool()
			.intercept({ path: '/v1/flux-3-image', method: 'POST' })
			.reply((opts) => {
				seen.push(opts.headers as Record<string, unknown>);
				return { statusCode: 200, data: { id: 't', polling_url: `${ORIGIN}/v1/get_result?id=t` }, responseOptions: json };
			});
		pool()
			.intercept({ path: '/v1/get_result?id=t', method: 'GET' })
			.reply((opts) => {
				seen.push(opts.headers as Record<string, unknown>);
				return { statusCode: 200, data: { status: 'Ready', result: { sample: `${ORIGIN}/files/t.png` } }, responseOptions: json };
			});
		pool()
			.intercept({ path: '/files/t.png', method: 'GET' })
			.reply((opts) => {
				seen.push(opts.headers as Record<string, unknown>);
				return { statusCode: 200, data: PNG };
			});
		const result = await run('bfl');
		expect(result.mimeType).toBe('image/png');
		const lower = seen.map((h) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v])));
		expect(lower[0]['x-key']).toBe(KEY);
		expect(lower[0].authorization).toBeUndefined();
		expect(lower[1]['x-key']).toBe(KEY);
		expect(lower[2]['x-key']).toBeUndefined();
		expect(lower[2].authorization).toBeUndefined();
	});

	it('honours an HTTP-date Retry-After on submit 429', async () => {
		const fixedNow = Date.parse('2030-01-01T00:00:00Z');
		pool()
			.intercept({ path: '/bfl/v1/flux-3-image', method: 'POST' })
			.reply(429, { detail: 'slow down' }, { headers: { 'retry-after': 'Tue, 01 Jan 2030 00:00:01 GMT' } });
		submitOk();
		pollReady(`${ORIGIN}/files/a.png`);
		pool().intercept({ path: '/files/a.png', method: 'GET' }).reply(200, PNG);
		const clock = fakeClock(fixedNow);
		const result = await run('relay', {
			testHooks: { now: clock.now, sleep: clock.sleep, submitRetry: { initialDelayMs: 1, maxDelayMs: 1, jitter: 0, maxRetryAfterMs: 5_000, maxAttempts: 3 } },
		});
		expect(result.attempts.submit).toBe(2);
		expect(clock.slept[0]).toBe(1_000);
	});

	it('invalid JSON on a poll (a gateway page) is retried, then Ready', async () => {
		submitOk();
		pool().intercept({ path: '/bfl/v1/get_result?id=task-1', method: 'GET' }).reply(200, '<html>gateway</html>');
		pollReady(`${ORIGIN}/files/a.png`);
		pool().intercept({ path: '/files/a.png', method: 'GET' }).reply(200, PNG);
		const result = await run();
		expect(result.taskId).toBe('task-1');
		expect(result.attempts.poll).toBe(2);
	});

	it('a poll without status is retried; for ever → timeout naming it, with the task id', async () => {
		submitOk();
		pool().intercept({ path: '/bfl/v1/get_result?id=task-1', method: 'GET' }).reply(200, { id: 'task-1' }, json).persist();
		// 2 s: the submit and a first poll fit in it even on a loaded machine (in 200 ms a starved process could still be submitting).
		const err = await failureOf(run('relay', { timeoutMs: 2000 }));
		expect(err.kind).toBe('timeout');
		expect(err.taskId).toBe('task-1');
		expect(err.message).toMatch(/no "status" field/);
	});

	it('Ready without result.sample → invalid_response', async () => {
		submitOk();
		pool()
			.intercept({ path: '/bfl/v1/get_result?id=task-1', method: 'GET' })
			.reply(200, { id: 'task-1', status: 'Ready', result: null }, json);
		expect((await failureOf(run())).kind).toBe('invalid_response');
	});

	it('extra fields are tolerated (passthrough)', async () => {
		pool()
			.intercept({ path: '/bfl/v1/flux-3-image', method: 'POST' })
			.reply(200, { id: 'task-1', cost: 3, something_new: { a: 1 } }, json);
		pool()
			.intercept({ path: '/bfl/v1/get_result?id=task-1', method: 'GET' })
			.reply(200, { id: 'task-1', status: 'Ready', progress: 1, extra: [1], result: { sample: `${ORIGIN}/f.png`, seed: 3 } }, json);
		pool().intercept({ path: '/f.png', method: 'GET' }).reply(200, PNG);
		expect((await run()).taskId).toBe('task-1');
	});

	it.each(['ftp://127.0.0.1/x.png', 'file:///etc/passwd', 'data:image/png;base64,iVBO'])(
		'a sample URL with scheme %s → download_failed without a request',
		async (sample) => {
			submitOk();
			pollReady(sample);
			const err = await failureOf(run());
			expect(err.kind).toBe('download_failed');
			expect(err.message).not.toContain('passwd');
		},
	);

	it('a redirect to a non-http(s) scheme → download_failed', async () => {
		submitOk();
		pollReady(`${ORIGIN}/files/a.png`);
		pool().intercept({ path: '/files/a.png', method: 'GET' }).reply(302, '', { headers: { location: 'file:///etc/passwd' } });
		const err = await failureOf(run());
		expect(err.kind).toBe('download_failed');
		expect(err.message).toMatch(/only http\(s\)/);
	});

	it('JPEG and WebP results get their mime type from magic bytes, not from the URL', async () => {
		const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0, 0, 0, 0]), Buffer.from('WEBPVP8 ')]);
		submitOk();
		pollReady(`${ORIGIN}/files/a.png`);
		pool().intercept({ path: '/files/a.png', method: 'GET' }).reply(200, webp, { headers: { 'content-type': 'image/png' } });
		const result = await run();
		expect(result).toMatchObject({ mimeType: 'image/webp', fileExtension: 'webp' });

		submitOk('task-2');
		pollReady(`${ORIGIN}/files/b.webp`, 'task-2');
		pool().intercept({ path: '/files/b.webp', method: 'GET' }).reply(200, Buffer.from([0xff, 0xd8, 0xff, 0xdb, 0, 0]));
		expect(await run()).toMatchObject({ mimeType: 'image/jpeg', fileExtension: 'jpg' });
	});

	it('the credential test answered with a redirect says to check http vs https', async () => {
		pool().intercept({ path: '/bfl/v1/credits', method: 'GET' }).reply(307, '', { headers: { location: 'https://127.0.0.1:9/bfl/v1/credits' } });
		const r = await checkFluxCredentials({ apiStyle: 'relay', baseUrl: ORIGIN, apiKey: KEY }, { dispatcher: agent });
		expect(r).toMatchObject({ ok: false, statusCode: 307 });
		expect(r.message).toMatch(/HTTP 307.*check http vs https/);
	});
});

describe('downloads only from public addresses, unless the Base URL is local (through MockAgent)', () => {
	const API = 'https://api.example.com';
	const publicRun = (sample: string) => {
		agent.get(API).intercept({ path: '/bfl/v1/flux-3-image', method: 'POST' }).reply(200, { id: 't' }, json);
		agent.get(API).intercept({ path: '/bfl/v1/get_result?id=t', method: 'GET' }).reply(200, { status: 'Ready', result: { sample } }, json);
		return generateImage({ apiStyle: 'relay', baseUrl: API, apiKey: KEY }, requestFor('p'), fast({ testHooks: { dispatcher: agent } }));
	};

	it.each([
		['http://169.254.169.254/latest/meta-data', /link-local address \(169\.254\.169\.254\)/],
		['http://127.0.0.1:8080/x.png', /loopback address \(127\.0\.0\.1\)/],
		['http://10.1.2.3/x.png', /private \(RFC 1918\) address/],
		['http://[::1]/x.png', /loopback address \(::1\)/],
		['http://[fd00::5]/x.png', /private \(unique local\) address/],
		['http://localhost/x.png', /local host name "localhost"/],
		['http://metadata.google.internal/x.png', /local host name/],
	])('a sample URL on %s → forbidden_host, nothing requested', async (sample, why) => {
		const err = await failureOf(publicRun(sample));
		expect(err.kind).toBe('forbidden_host');
		expect(err.message).toMatch(why);
		expect(err.message).toMatch(/only downloaded from public addresses/);
		expect(err.taskId).toBe('t');
	});

	it('a redirect from a public host to a link-local one → forbidden_host, the target is never requested', async () => {
		agent.get('https://cdn.example.com').intercept({ path: '/a.png', method: 'GET' }).reply(302, '', { headers: { location: 'http://169.254.169.254/' } });
		const err = await failureOf(publicRun('https://cdn.example.com/a.png'));
		expect(err.kind).toBe('forbidden_host');
		expect(err.message).toMatch(/The image redirect points to a link-local address/);
	});

	it('a clip on a private address → forbidden_host worded for the video, not an image', async () => {
		agent.get(API).intercept({ path: '/bfl/v1/flux-3-video', method: 'POST' }).reply(200, { id: 'v' }, json);
		agent.get(API).intercept({ path: '/bfl/v1/get_result?id=v', method: 'GET' }).reply(200, { status: 'Ready', result: { sample: 'http://10.1.2.3/c.mp4' } }, json);
		const request = { model: flux3Video, mode: 't2v' as const, prompt: 'p', aspectRatio: 'auto' as const, resolution: 'hd' as const, duration: 'auto' as const, generateAudio: true };
		const err = await failureOf(generateVideo({ apiStyle: 'relay', baseUrl: API, apiKey: KEY }, request, fast({ testHooks: { dispatcher: agent }, downloadDir: tmpdir() })));
		expect(err.kind).toBe('forbidden_host');
		expect(err.message).toMatch(/^The video URL points to a private \(RFC 1918\) address.*: videos are only downloaded from public addresses/);
		expect(err.message).not.toMatch(/image/);
	});

	it('a local Base URL (a local relay) may download from local addresses', async () => {
		submitOk();
		pollReady('http://10.1.2.3/files/a.png');
		agent.get('http://10.1.2.3').intercept({ path: '/files/a.png', method: 'GET' }).reply(200, PNG);
		expect((await run()).mimeType).toBe('image/png');
	});
});
