/**
 * A real `n8n start` (the REST API and editor) for a scratch home, and a REST session on it: owner
 * setup with n8n's auth cookie, then JSON requests. Facts (n8n 2.0.3, also true of 2.41.1): wait for the "Editor is now
 * accessible" line and `GET /rest/settings` 200; `POST /rest/owner/setup` needs a `browser-id` header
 * (the auth cookie is bound to it) and `N8N_SECURE_COOKIE=false` on plain http; REST answers are
 * `{ data: … }`.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';

import { getFreePort, n8nCommandLine, type LogFn, type N8nHome } from './index';
import { spawnLongRunning } from './processes';

export interface N8nServer {
	/** 'http://127.0.0.1:PORT' */
	url: string;
	/** The process id of `n8n start` (its task runner is a child of it). */
	pid: number | undefined;
	/** Everything n8n printed so far (stdout and stderr). */
	output(): string;
	/** Stops n8n and its task runner (the whole process group). */
	stop(): Promise<void>;
	/** Kills n8n and its task runner at once (SIGKILL to the process group: a crash, no shutdown). */
	kill(): Promise<void>;
}

export interface StartN8nServerOptions {
	/** Extra environment for this process. */
	env?: Record<string, string>;
	/** How long to wait for n8n to be ready (default 180 s). */
	timeoutMs?: number;
	/** Options for the Node.js of `n8n start` itself (e.g. `--cpu-prof --cpu-prof-dir=DIR`: the profile is written when it stops). */
	nodeArgs?: readonly string[];
	log?: LogFn;
}

/** Starts `n8n start` on a free port of 127.0.0.1 and resolves once its REST API answers. */
export async function startN8nServer(home: N8nHome, opts: StartN8nServerOptions = {}): Promise<N8nServer> {
	const port = await getFreePort();
	const url = `http://127.0.0.1:${port}`;
	const env = {
		...home.env,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_BROKER_PORT: String(await getFreePort()),
		REAL_N8N_PARENT_PID: String(process.pid),
		...(opts.env ?? {}),
	};
	const line = n8nCommandLine(home, ['start'], opts.nodeArgs);
	const proc = spawnLongRunning(line.command, line.args, { cwd: home.dir, env });
	const { child } = proc;
	const server: N8nServer = { url, pid: child.pid, output: proc.output, stop: () => proc.stop(10_000), kill: proc.kill };
	try {
		await waitUntilReady(server, child, opts.timeoutMs ?? 180_000);
	} catch (error) {
		await server.stop();
		throw error;
	}
	opts.log?.(`n8n start: ready on ${url}`);
	return server;
}

async function waitUntilReady(server: N8nServer, child: ChildProcess, timeoutMs: number): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (child.exitCode !== null || child.signalCode !== null) {
			throw new Error(`n8n start exited (${child.exitCode ?? child.signalCode}):\n${server.output().slice(-3000)}`);
		}
		if (/Editor is now accessible/.test(server.output())) {
			const settings = await fetch(`${server.url}/rest/settings`).catch(() => undefined);
			if (settings?.ok) return;
		}
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
	throw new Error(`n8n start was not ready within ${timeoutMs} ms:\n${server.output().slice(-3000)}`);
}

export interface RestAnswer<T = unknown> {
	status: number;
	/** The `data` field of n8n's `{ data }` envelope (or the whole body when there is none). */
	data: T;
	body: unknown;
}

/** A logged-in REST session (the owner's): n8n's auth cookie and browser id on every request. */
export class N8nRestSession {
	private cookie = '';
	private readonly browserId = randomUUID();

	constructor(readonly baseUrl: string) {}

	/** Creates the instance owner and keeps the auth cookie (a fresh n8n only). */
	async setUpOwner(owner = { email: 'owner@example.com', firstName: 'Test', lastName: 'Owner', password: 'Owner-password-1' }): Promise<void> {
		const answer = await this.request('POST', '/rest/owner/setup', owner);
		if (answer.status !== 200) throw new Error(`owner setup answered HTTP ${answer.status}: ${JSON.stringify(answer.body)}`);
		if (!this.cookie) throw new Error('owner setup set no n8n-auth cookie');
	}

	async request<T = unknown>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', route: string, body?: unknown): Promise<RestAnswer<T>> {
		const res = await fetch(`${this.baseUrl}${route}`, {
			method,
			headers: {
				'content-type': 'application/json',
				'browser-id': this.browserId,
				...(this.cookie ? { cookie: this.cookie } : {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const auth = res.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
		if (auth) this.cookie = auth.split(';')[0];
		const text = await res.text();
		let parsed: unknown = text;
		try {
			parsed = JSON.parse(text) as unknown;
		} catch {
			/* not JSON */
		}
		const data = parsed && typeof parsed === 'object' && 'data' in parsed ? (parsed as { data: T }).data : (parsed as T);
		return { status: res.status, data, body: parsed };
	}
}

/** The answer of n8n's credential test (the editor's "Test" button). */
export interface CredentialTestAnswer {
	status: 'OK' | 'Error';
	message: string;
}

/**
 * Saves a credential through the REST API and runs n8n's own credential test on it
 * (`POST /rest/credentials`, then `POST /rest/credentials/test` with `{ credentials: { id, name, type, data } }`).
 */
export async function testCredentialThroughN8n(
	session: N8nRestSession,
	credential: { name: string; type: string; data: Record<string, unknown> },
): Promise<CredentialTestAnswer> {
	const created = await session.request<{ id: string }>('POST', '/rest/credentials', credential);
	if (created.status !== 200 || !created.data?.id) {
		throw new Error(`creating the credential answered HTTP ${created.status}: ${JSON.stringify(created.body).slice(0, 500)}`);
	}
	const tested = await session.request<CredentialTestAnswer>('POST', '/rest/credentials/test', {
		credentials: { id: created.data.id, ...credential },
	});
	if (tested.status !== 200) {
		throw new Error(`the credential test answered HTTP ${tested.status}: ${JSON.stringify(tested.body).slice(0, 500)}`);
	}
	return tested.data;
}
