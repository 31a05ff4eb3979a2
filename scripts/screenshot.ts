/**
 * Render an example workflow as the n8n editor shows it: a screenshot of the REAL editor (n8n 2.0.3
 * from the cache, this package installed) taken with headless Chromium, for the README.
 *
 *   ts-node --transpile-only scripts/screenshot.ts [--example minimal|batch] [--out docs/example-workflow.png]
 *       [--width 1600] [--height 900] [--chromium /usr/bin/chromium]
 *
 * Needs `npm run build` first and a Chromium (Debian: apt-get install chromium). Everything listens on
 * 127.0.0.1 and is stopped at the end. The owner account is set up through n8n's REST API from inside
 * the page (n8n binds its auth cookie to the browser's id). Chromium is driven through the DevTools
 * protocol with the `ws` module of the cached n8n install (no extra dependency for this project).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, promises as fsp, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { EXAMPLE_CREDENTIAL_NAME, EXAMPLES, REPO_ROOT, loadExample, withOutputFolder } from './examples';
import { createN8nHome, getFreePort, importCredentials, importWorkflows, n8nInstallDir, type N8nHome } from './n8n';
import { startN8nServer } from './n8n/n8nServer';

function arg(flag: string, fallback: string): string {
	const i = process.argv.indexOf(flag);
	return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const log = (line: string) => process.stderr.write(`[screenshot] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const children: ChildProcess[] = [];
function start(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): ChildProcess {
	const child = spawn(command, args, { env, cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
	children.push(child);
	return child;
}
function stopAll(): void {
	for (const child of children) {
		if (child.pid === undefined || child.exitCode !== null) continue;
		try {
			process.kill(-child.pid, 'SIGKILL');
		} catch {
			/* gone */
		}
	}
}
process.on('exit', stopAll);

async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await probe().catch(() => undefined);
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await sleep(500);
	}
}

/** A minimal Chrome DevTools Protocol client over one page session. */
class Cdp {
	private nextId = 1;
	private pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
	constructor(
		private socket: { send(data: string): void; on(event: string, cb: (data: unknown) => void): void },
		private sessionId?: string,
	) {
		socket.on('message', (data) => {
			const msg = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
			if (msg.id === undefined) return;
			const waiter = this.pending.get(msg.id);
			if (!waiter) return;
			this.pending.delete(msg.id);
			if (msg.error) waiter.reject(new Error(msg.error.message));
			else waiter.resolve(msg.result);
		});
	}
	session(sessionId: string): Cdp {
		const child = new Cdp({ send: (d) => this.socket.send(d), on: () => undefined }, sessionId);
		child.nextId = 100_000;
		child.pending = this.pending; // replies arrive on the shared socket
		return child;
	}
	send<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}): Promise<T> {
		const id = this.nextId++;
		const message = { id, method, params, ...(this.sessionId ? { sessionId: this.sessionId } : {}) };
		return new Promise<T>((resolve, reject) => {
			this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
			this.socket.send(JSON.stringify(message));
		});
	}
	async evaluate<T>(expression: string): Promise<T> {
		const result = await this.send<{ result: { value?: T }; exceptionDetails?: { text: string } }>('Runtime.evaluate', {
			expression,
			awaitPromise: true,
			returnByValue: true,
		});
		if (result.exceptionDetails) throw new Error(`page error: ${result.exceptionDetails.text}`);
		return result.result.value as T;
	}
}

interface Shot {
	out: string;
	width: number;
	height: number;
	chromium: string;
}

async function main(): Promise<void> {
	const key = arg('--example', 'minimal');
	const info = EXAMPLES.find((e) => e.key === key);
	if (!info) throw new Error(`--example must be ${EXAMPLES.map((e) => e.key).join(' or ')}`);
	const shot: Shot = {
		out: path.resolve(arg('--out', path.join(REPO_ROOT, 'docs', 'example-workflow.png'))),
		width: Number(arg('--width', '1600')),
		height: Number(arg('--height', '900')),
		chromium: arg('--chromium', ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find(existsSync) ?? 'chromium'),
	};

	const files = mkdtempSync(path.join(tmpdir(), 'flux-shot-files-'));
	const profile = mkdtempSync(path.join(tmpdir(), 'flux-shot-chromium-'));
	const home = await createN8nHome({ packageDir: REPO_ROOT, outputDir: files, log });
	try {
		// A credential with the examples' name so the nodes show it selected (never used: nothing runs).
		await importCredentials(home, [
			{ name: EXAMPLE_CREDENTIAL_NAME, type: 'fluxApi', data: { apiStyle: 'bfl', baseUrl: 'https://api.bfl.ai', apiKey: 'not-a-real-key' } },
		]);
		const [id] = await importWorkflows(home, [withOutputFolder(loadExample(info), '/home/node/.n8n-files')]);
		const base = await startEditor(home);
		const { page, socket } = await openPage(shot, profile);
		await setUpOwner(page, base);
		await captureWorkflow(page, `${base}/workflow/${id}`, loadExample(info).nodes.length, shot);
		socket.close();
	} finally {
		stopAll();
		await home.cleanup();
		await sleep(500); // Chromium may still be writing its profile as it dies
		await fsp.rm(profile, { recursive: true, force: true });
		await fsp.rm(files, { recursive: true, force: true });
	}
}

/** `n8n start` for the home on a free loopback port (scripts/n8n/n8nServer.ts); resolves with its base URL once up. */
async function startEditor(home: N8nHome): Promise<string> {
	const server = await startN8nServer(home, { log });
	log(`n8n start on ${server.url}`);
	return server.url;
}

type DevToolsSocket = {
	send(data: string): void;
	on(event: string, cb: (data: unknown) => void): void;
	once(event: string, cb: (data: unknown) => void): void;
	close(): void;
};

/** Headless Chromium with DevTools on a free loopback port, and one page of the shot's size. */
async function openPage(shot: Shot, profile: string): Promise<{ page: Cdp; socket: DevToolsSocket }> {
	const { width, height } = shot;
	const debugPort = await getFreePort();
	start(
		shot.chromium,
		[
			'--headless=new',
			'--no-sandbox',
			'--disable-gpu',
			'--hide-scrollbars',
			'--no-first-run',
			'--force-device-scale-factor=1',
			`--remote-debugging-address=127.0.0.1`,
			`--remote-debugging-port=${debugPort}`,
			`--user-data-dir=${profile}`,
			`--window-size=${width},${height}`,
			'about:blank',
		],
		process.env,
		profile,
	);
	const version = await waitFor('Chromium DevTools', 30_000, async () => {
		const res = await fetch(`http://127.0.0.1:${debugPort}/json/version`);
		return res.ok ? ((await res.json()) as { webSocketDebuggerUrl: string }) : undefined;
	});
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const WebSocket = require(path.join(n8nInstallDir(), 'node_modules', 'ws')) as new (url: string) => DevToolsSocket;
	const socket = new WebSocket(version.webSocketDebuggerUrl);
	await new Promise((resolve) => socket.once('open', resolve));
	const browser = new Cdp(socket);
	const { targetId } = await browser.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
	const { sessionId } = await browser.send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
	const page = browser.session(sessionId);
	await page.send('Page.enable');
	await page.send('Runtime.enable');
	await page.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
	return { page, socket };
}

async function navigate(page: Cdp, url: string): Promise<void> {
	await page.send('Page.navigate', { url });
	await waitFor(`page ${url}`, 60_000, async () => ((await page.evaluate<string>('document.readyState')) === 'complete' ? true : undefined));
}

/** Open the editor's setup page and create the owner account through its REST API (as the page would). */
async function setUpOwner(page: Cdp, base: string): Promise<void> {
	await navigate(page, `${base}/setup`);
	await waitFor('the editor to start', 60_000, async () =>
		(await page.evaluate<number>("document.querySelectorAll('#app *').length")) > 20 ? true : undefined,
	).catch(async (error: unknown) => {
		log(`page: ${await page.evaluate<string>("document.title + ' | ' + document.body.innerText.slice(0, 500)")}`);
		throw error;
	});
	// The id the editor sends as 'browser-id' (n8n binds its auth cookie to it); create it if not there yet.
	await page.evaluate(
		"localStorage.getItem('n8n-browserId') || localStorage.setItem('n8n-browserId', crypto.randomUUID()); true",
	);
	const setup = await page.evaluate<number>(`fetch('/rest/owner/setup', {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'browser-id': localStorage.getItem('n8n-browserId') },
		body: JSON.stringify({ email: 'demo@example.com', firstName: 'Demo', lastName: 'User', password: 'Demo-password-1' }),
	}).then((r) => r.status)`);
	if (setup !== 200) throw new Error(`owner setup answered HTTP ${setup}`);
	log('owner set up; opening the workflow');
}

/** Open the workflow, wait for its nodes, fit the view, and write the screenshot. */
async function captureWorkflow(page: Cdp, url: string, nodeCount: number, shot: Shot): Promise<void> {
	await navigate(page, url);
	await waitFor('the canvas', 60_000, async () =>
		(await page.evaluate<number>("document.querySelectorAll('.vue-flow__node').length")) >= nodeCount ? true : undefined,
	);
	await sleep(3000); // let fonts, icons and the fit-to-view animation settle
	// Fit the view once more now that the window size is final ("1" is n8n's zoom-to-fit shortcut).
	await page.evaluate("document.querySelector('.vue-flow')?.dispatchEvent(new KeyboardEvent('keydown', { key: '1', bubbles: true })); true");
	await sleep(1500);
	const { data } = await page.send<{ data: string }>('Page.captureScreenshot', { format: 'png' });
	await fsp.mkdir(path.dirname(shot.out), { recursive: true });
	await fsp.writeFile(shot.out, Buffer.from(data, 'base64'));
	log(`wrote ${path.relative(process.cwd(), shot.out)} (${shot.width}×${shot.height}, ${readFileSync(shot.out).length} bytes)`);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		stopAll();
		process.exit(1);
	},
);
