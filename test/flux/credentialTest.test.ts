import type { ICredentialTestFunctions } from 'n8n-workflow';
import { checkFluxCredentials, closeFluxAgent } from '../../src/flux';
import { fluxApiTest } from '../../src/fluxN8n/fluxNode';
import { RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { closedPort, startFakeOrigin, startHtmlSite, startHttpsRedirect, startSilentServer, type FakeOrigin } from './fakeOrigins';
import { credsFor } from './helpers';

let sim: RelaySimulator;
let bareRelay: RelaySimulator; // a relay that does not serve /credits
let bareRelay404: RelaySimulator; // …and answers an unknown task with 404 + JSON
useRelaySimulator({ credits: 1234 }, (started) => (sim = started));
useRelaySimulator({ creditsRoute: false }, (started) => (bareRelay = started));
useRelaySimulator({ creditsRoute: false, unknownTask404: true }, (started) => (bareRelay404 = started));

const KEY = 'sk-user-secret-key-0123456789';

/** Runs the test and checks what every answer must hold: no key, no URL, no job submitted. */
async function check(...args: Parameters<typeof checkFluxCredentials>) {
	const result = await checkFluxCredentials(...args);
	expect(result.message).not.toContain(args[0].apiKey);
	expect(result.message).not.toMatch(/:\/\/\S/); // no URL
	for (const s of [sim, bareRelay, bareRelay404]) expect(s.log.submits).toHaveLength(0);
	return result;
}

describe('checkFluxCredentials: an API that serves /credits', () => {
	it.each(['relay', 'bfl'] as const)('%s: a good key passes and the balance is reported', async (style) => {
		const r = await check(credsFor(sim, style));
		expect(r).toEqual({ ok: true, statusCode: 200, message: 'Connection successful: the API key was accepted (credits: 1234)' });
		expect(sim.log.creditChecks).toBe(1);
		expect(sim.log.polls).toBe(0);
	});

	it.each(['relay', 'bfl'] as const)('%s: a wrong key is refused (no fallback)', async (style) => {
		const r = await check(credsFor(sim, style, 'nope-nope-nope-123'));
		expect(r).toMatchObject({ ok: false, statusCode: 401 });
		expect(r.message).toMatch(/The API key was refused \(HTTP 401\): check the FLUX API credential/);
		expect(sim.log.polls).toBe(0);
	});

	it('bfl style against the relay routes (x-key where a Bearer is expected) is refused', async () => {
		const r = await check({ apiStyle: 'bfl', baseUrl: `${sim.url}/bfl`, apiKey: sim.apiKey });
		expect(r.ok).toBe(false);
	});
});

describe('checkFluxCredentials: a relay without /credits (fallback: poll an id that cannot exist)', () => {
	it('relay without /credits: the key is accepted through the poll for an unknown task (200 Task not found)', async () => {
		const r = await check(credsFor(bareRelay, 'relay'));
		expect(r).toMatchObject({ ok: true, statusCode: 200 });
		expect(r.message).toMatch(/^Connection successful: the API key was accepted/);
		expect(bareRelay.log.creditChecks).toBe(0);
		expect(bareRelay.log.polls).toBe(1);
		const [polled] = [...bareRelay.log.pollsByTask.keys()];
		expect(polled).toMatch(/^credential-test-[0-9a-f-]{36}$/);
	});

	it.each(['relay', 'bfl'] as const)('%s: a 404 + JSON for the unknown task also means accepted', async (style) => {
		const r = await check(credsFor(bareRelay404, style));
		expect(r).toMatchObject({ ok: true, statusCode: 404 });
		expect(r.message).toMatch(/^Connection successful: the API key was accepted/);
	});

	it('a wrong key is refused by the fallback poll', async () => {
		const r = await check(credsFor(bareRelay, 'relay', KEY));
		expect(r).toMatchObject({ ok: false, statusCode: 401 });
		expect(r.message).toMatch(/The API key was refused \(HTTP 401\)/);
		expect(r.message).not.toContain(KEY);
	});

	it('a Base URL with a path that is not the API (a JSON 404 for any route) is not a pass', async () => {
		const r = await check({ apiStyle: 'relay', baseUrl: `${bareRelay.url}/nothing-here`, apiKey: bareRelay.apiKey });
		expect(r).toMatchObject({ ok: false, statusCode: 404 });
		expect(r.message).toMatch(/answered with no such route \(HTTP 404\), not the FLUX API: check the Base URL/);
	});
});

describe('checkFluxCredentials: other answers of /credits', () => {
	const origins: FakeOrigin[] = [];
	afterAll(async () => {
		await Promise.all(origins.map((o) => o.close()));
		await closeFluxAgent();
	});
	/** An API whose /credits answers `status` + `body`, and whose poll says the task is unknown. */
	async function api(status: number, body: unknown): Promise<FakeOrigin> {
		const origin = await startFakeOrigin((req, res) => {
			const json = req.url?.includes('/credits') ? body : { id: 'x', status: 'Task not found' };
			res.writeHead(req.url?.includes('/credits') ? status : 200, { 'content-type': 'application/json' });
			res.end(JSON.stringify(json));
		});
		origins.push(origin);
		return origin;
	}

	it('402: the key is accepted, the account is out of credits (no fallback)', async () => {
		const origin = await api(402, { detail: 'Insufficient credits' });
		const r = await check({ apiStyle: 'bfl', baseUrl: origin.url, apiKey: KEY });
		expect(r).toEqual({ ok: true, statusCode: 402, message: 'Connection successful: the API key was accepted, but the account is out of credits (HTTP 402)' });
		expect(origin.requests).toEqual(['GET /v1/credits']);
	});

	it('a JSON answer without a balance: accepted, no balance invented', async () => {
		const origin = await api(200, { ok: true });
		expect(await check({ apiStyle: 'relay', baseUrl: origin.url, apiKey: KEY })).toEqual({
			ok: true,
			statusCode: 200,
			message: 'Connection successful: the API key was accepted',
		});
	});

	it('405 falls back to the poll', async () => {
		const origin = await api(405, { detail: 'Method Not Allowed' });
		const r = await check({ apiStyle: 'relay', baseUrl: origin.url, apiKey: KEY });
		expect(r).toMatchObject({ ok: true, statusCode: 200 });
		expect(origin.requests).toEqual(['GET /bfl/v1/credits', expect.stringMatching(/^GET \/bfl\/v1\/get_result\?id=credential-test-/)]);
	});
});

describe('checkFluxCredentials: a Base URL that is not the API', () => {
	const origins: FakeOrigin[] = [];
	afterAll(async () => {
		await Promise.all(origins.map((o) => o.close()));
		await closeFluxAgent();
	});
	const start = async (p: Promise<FakeOrigin>) => {
		const origin = await p;
		origins.push(origin);
		return origin;
	};

	it('a web page (HTML) says wrong Base URL', async () => {
		const site = await start(startHtmlSite());
		const r = await check({ apiStyle: 'relay', baseUrl: site.url, apiKey: KEY });
		expect(r).toMatchObject({ ok: false, statusCode: 200 });
		expect(r.message).toMatch(/answered with a web page \(HTTP 200\), not the FLUX API: check the Base URL/);
		expect(site.requests).toEqual([
			'GET /bfl/v1/credits',
			expect.stringMatching(/^GET \/bfl\/v1\/get_result\?id=credential-test-/),
		]);
	});

	it.each([301, 307] as const)('an http → https redirect (%i) says to check http vs https', async (status) => {
		const front = await start(startHttpsRedirect(status));
		const r = await check({ apiStyle: 'bfl', baseUrl: front.url, apiKey: KEY });
		expect(r).toMatchObject({ ok: false, statusCode: status });
		expect(r.message).toBe(
			`The Base URL redirects (HTTP ${status}) from http to https: check http vs https in the Base URL (it should start with https)`,
		);
		expect(front.requests).toEqual(['GET /v1/credits']); // the redirect is not followed
	});

	it('an unreachable host (closed port) says the connection was refused, without retrying', async () => {
		const port = await closedPort();
		const r = await check({ apiStyle: 'relay', baseUrl: `http://127.0.0.1:${port}`, apiKey: KEY });
		expect(r.ok).toBe(false);
		expect(r.statusCode).toBeUndefined();
		expect(r.message).toBe(
			`Could not reach the FLUX API at 127.0.0.1:${port}: the connection was refused: check the Base URL (host and port) and that the API is reachable from n8n`,
		);
	});

	it('a server that never answers is bounded by timeoutMs', async () => {
		const silent = await start(startSilentServer());
		const r = await check({ apiStyle: 'relay', baseUrl: silent.url, apiKey: KEY }, { timeoutMs: 200 });
		expect(r).toEqual({
			ok: false,
			message: `No answer from 127.0.0.1:${silent.port} within 0.2 s: check the Base URL and that the API is reachable`,
		});
	});

	it('a cancel signal ends the test', async () => {
		const silent = await start(startSilentServer());
		const controller = new AbortController();
		const pending = check({ apiStyle: 'relay', baseUrl: silent.url, apiKey: KEY }, { signal: controller.signal });
		while (silent.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
		controller.abort();
		expect(await pending).toEqual({ ok: false, message: 'The credential test was cancelled' });
	});

	it('a bad base URL is reported by the Test button without a request (the glue validates the credential once)', async () => {
		const credential = { id: '1', name: 'FLUX', type: 'fluxApi', data: { apiStyle: 'relay', baseUrl: 'file:///tmp', apiKey: 'abcdef123' } };
		const r = await fluxApiTest.call({} as ICredentialTestFunctions, credential);
		expect(r.status).toBe('Error');
		expect(r.message).toMatch(/"Base URL" must be an http\(s\) URL/);
		expect(r.message).not.toContain('abcdef123');
	});
});
