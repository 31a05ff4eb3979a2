/**
 * The FLUX API credential's "Test" button in a REAL n8n 2.0.3 (`n8n start`, this package installed as a
 * community package): the credential is saved and tested through n8n's own REST route
 * (`POST /rest/credentials/test`), against the relay simulator and tiny non-API servers on 127.0.0.1.
 * Also: the package's warnings reach n8n's own log (LoggerProxy), with the package name.
 * Needs `npm run build` first.
 */
import { randomBytes } from 'node:crypto';

import { REPO_ROOT } from '../../scripts/examples';
import {
	N8nRestSession,
	startN8nServer,
	testCredentialThroughN8n,
	type CredentialTestAnswer,
	type N8nServer,
} from '../../scripts/n8n/n8nServer';
import { createN8nHome, executeWorkflow, importCredentials, importWorkflow, type N8nHome } from '../../scripts/n8n';
import { startRelaySimulator, type RelaySimulator } from '../../relay-sim';
import { closedPort, startHtmlSite, startHttpsRedirect, type FakeOrigin } from '../flux/fakeOrigins';

/** A key that must never show up in an answer. */
const API_KEY = `sim-e2e-${randomBytes(16).toString('hex')}`;
const WRONG_KEY = `wrong-${randomBytes(16).toString('hex')}`;
const log = (line: string) => process.stderr.write(`[e2e credential] ${line}\n`);

let home: N8nHome | undefined;
let server: N8nServer | undefined;
let session: N8nRestSession;
let withCredits: RelaySimulator;
let withoutCredits: RelaySimulator;
const origins: FakeOrigin[] = [];
let counter = 0;

beforeAll(async () => {
	withCredits = await startRelaySimulator({ apiKey: API_KEY, credits: 321 });
	withoutCredits = await startRelaySimulator({ apiKey: API_KEY, creditsRoute: false });
	home = await createN8nHome({ packageDir: REPO_ROOT, log });
	server = await startN8nServer(home, { log });
	session = new N8nRestSession(server.url);
	await session.setUpOwner();
}, 15 * 60_000);

afterAll(async () => {
	await server?.stop();
	await home?.cleanup();
	await Promise.all([withCredits?.close(), withoutCredits?.close(), ...origins.map((o) => o.close())]);
});

/** Saves a FLUX API credential in n8n and presses "Test" through the REST API. */
async function test(apiStyle: 'relay' | 'bfl', baseUrl: string, apiKey = API_KEY): Promise<CredentialTestAnswer> {
	counter++;
	const answer = await testCredentialThroughN8n(session, {
		name: `FLUX API ${counter}`,
		type: 'fluxApi',
		data: { apiStyle, baseUrl, apiKey },
	});
	log(`${apiStyle} ${baseUrl}: ${answer.status}: ${answer.message}`);
	for (const key of [API_KEY, WRONG_KEY]) expect(answer.message).not.toContain(key);
	expect(withCredits.log.submits.concat(withoutCredits.log.submits)).toHaveLength(0); // never a paid job
	return answer;
}

async function origin(started: Promise<FakeOrigin>): Promise<FakeOrigin> {
	const o = await started;
	origins.push(o);
	return o;
}

describe("the FLUX API credential test through n8n's own route", () => {
	it('BFL with credits: OK, with the balance', async () => {
		expect(await test('bfl', withCredits.url)).toEqual({
			status: 'OK',
			message: 'Connection successful: the API key was accepted (credits: 321)',
		});
	});

	it('relay with credits: OK, with the balance', async () => {
		expect(await test('relay', `${withCredits.url}/`)).toEqual({
			status: 'OK',
			message: 'Connection successful: the API key was accepted (credits: 321)',
		});
	});

	it('relay without /credits: OK through the poll of a task that cannot exist', async () => {
		const answer = await test('relay', withoutCredits.url);
		expect(answer.status).toBe('OK');
		expect(answer.message).toMatch(/^Connection successful: the API key was accepted/);
		expect(withoutCredits.log.polls).toBeGreaterThanOrEqual(1);
		expect([...withoutCredits.log.pollsByTask.keys()].every((id) => id.startsWith('credential-test-'))).toBe(true);
	});

	it.each([
		['with', () => withCredits],
		['without', () => withoutCredits],
	])('wrong key (relay %s /credits): refused', async (_label, sim) => {
		expect(await test('relay', sim().url, WRONG_KEY)).toEqual({
			status: 'Error',
			message: 'The API key was refused (HTTP 401): check the FLUX API credential',
		});
	});

	it('wrong base URL (a web page): says so', async () => {
		const site = await origin(startHtmlSite());
		const answer = await test('relay', site.url);
		expect(answer.status).toBe('Error');
		expect(answer.message).toMatch(/answered with a web page \(HTTP 200\), not the FLUX API: check the Base URL/);
	});

	it('http → https redirect: says to check http vs https', async () => {
		const front = await origin(startHttpsRedirect(301));
		expect(await test('relay', front.url)).toEqual({
			status: 'Error',
			message: 'The Base URL redirects (HTTP 301) from http to https: check http vs https in the Base URL (it should start with https)',
		});
	});

	it('unreachable host (closed port): says the connection was refused', async () => {
		const port = await closedPort();
		const answer = await test('bfl', `http://127.0.0.1:${port}`);
		expect(answer).toEqual({
			status: 'Error',
			message: `Could not reach the FLUX API at 127.0.0.1:${port}: the connection was refused: check the Base URL (host and port) and that the API is reachable from n8n`,
		});
	});
});

describe("the package's warnings go to n8n's log", () => {
	it('a bad COMFLY_* value is logged by n8n, with the package name', async () => {
		const sim = await startRelaySimulator({ apiKey: API_KEY });
		try {
			const [credential] = await importCredentials(home!, [
				{ name: 'FLUX for logs', type: 'fluxApi', data: { apiStyle: 'relay', baseUrl: sim.url, apiKey: API_KEY } },
			]);
			const id = await importWorkflow(home!, {
				name: 'COMFLY warning',
				nodes: [
					{ id: 'a1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
					{
						id: 'a2',
						name: 'Submit',
						type: home!.nodeType('fluxConcurrentSubmit'),
						typeVersion: 1,
						position: [220, 0],
						parameters: { prompt: 'a warning test' },
						credentials: { fluxApi: { id: credential.id, name: credential.name } },
					},
				],
				connections: { Start: { main: [[{ node: 'Submit', type: 'main', index: 0 }]] } },
			});
			// n8n's JSON log format tells its own log lines from anything written to the console.
			const result = await executeWorkflow(home!, id, { env: { COMFLY_IMAGE_CONCURRENCY: 'lots', N8N_LOG_FORMAT: 'json' } });
			const output = result.stdout + result.stderr;
			const warnings = output
				.split('\n')
				.filter((line) => line.includes('COMFLY_IMAGE_CONCURRENCY'))
				.map((line) => {
					try {
						return JSON.parse(line.slice(line.indexOf('{'))) as { level?: string; message?: string };
					} catch {
						return { message: `not n8n's log format: ${line}` };
					}
				});
			expect(warnings).toEqual([
				expect.objectContaining({
					level: 'warn',
					message: '[n8n-nodes-flux-concurrent] COMFLY_IMAGE_CONCURRENCY="lots" is not an integer; using 30.',
				}),
			]);
			expect(output).not.toContain(API_KEY);
		} finally {
			await sim.close();
		}
	});
});
