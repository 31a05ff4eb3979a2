/**
 * The n8n editor in a real headless Chromium (the machine's, e.g. Debian's `chromium`; playwright-core drives it
 * and downloads no browser), for the end-to-end tests and the screenshot script. Facts this relies on (n8n 2.0.3
 * and 2.41.1): n8n binds its auth cookie to the browser's `n8n-browserId`, so the owner is set up from inside the
 * page; the nodes panel is `node-creator`, its search box `node-creator-search-bar`, its results
 * `node-creator-item-name`; a node's output "+" is `canvas-handle-plus`; 2.41 shows a community node's details
 * with an "Add to workflow" button before adding it.
 */
import { existsSync, mkdtempSync, promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** What the functions run inside the page (in Chromium, not in Node) use of the browser. */
declare const document: { querySelector(selector: string): unknown; querySelectorAll(selector: string): { length: number } };
declare const localStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };

/** Where Chromium is looked for when FLUX_E2E_CHROMIUM does not say. */
const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** Flags that work on a closed network (no sandbox as root, nothing that phones home). */
export const CHROMIUM_FLAGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	'--hide-scrollbars',
	'--force-device-scale-factor=1',
];

/** The Chromium to drive: FLUX_E2E_CHROMIUM, else the first of the usual paths; undefined when there is none. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
	const wanted = env.FLUX_E2E_CHROMIUM?.trim();
	if (wanted) return wanted;
	return CHROMIUM_CANDIDATES.find((candidate) => existsSync(candidate));
}

export interface EditorBrowser {
	context: BrowserContext;
	page: Page;
	/** Closes Chromium and deletes its fresh profile folder. */
	close(): Promise<void>;
}

/** Headless Chromium with a fresh profile and one page of the given size. */
export async function launchEditorBrowser(opts: { executablePath?: string; width?: number; height?: number } = {}): Promise<EditorBrowser> {
	const executablePath = opts.executablePath ?? findChromium();
	if (!executablePath) throw new Error(`no Chromium found (tried ${CHROMIUM_CANDIDATES.join(', ')}; set FLUX_E2E_CHROMIUM, or apt-get install chromium)`);
	const profile = mkdtempSync(path.join(tmpdir(), 'flux-e2e-chromium-'));
	const viewport = { width: opts.width ?? 1440, height: opts.height ?? 900 };
	const context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: CHROMIUM_FLAGS, viewport });
	const page = context.pages()[0] ?? (await context.newPage());
	return {
		context,
		page,
		async close() {
			await context.close().catch(() => undefined);
			await fsp.rm(profile, { recursive: true, force: true });
		},
	};
}

/** A workflow as n8n's REST API takes it. */
export interface EditorWorkflow {
	name: string;
	nodes: Array<Record<string, unknown>>;
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
}

/** The editor of one n8n, driven through one page, logged in as its owner. */
export class N8nEditor {
	constructor(
		readonly page: Page,
		readonly baseUrl: string,
	) {}

	/** Opens the editor and creates the owner account from inside the page (n8n ties its cookie to the browser id). */
	async setUpOwner(owner = { email: 'owner@example.com', firstName: 'Test', lastName: 'Owner', password: 'Owner-password-1' }): Promise<void> {
		await this.page.goto(`${this.baseUrl}/setup`);
		await this.page.waitForFunction(() => document.querySelectorAll('#app *').length > 20, undefined, { timeout: 60_000 });
		const status = await this.page.evaluate(async (body) => {
			const id = localStorage.getItem('n8n-browserId') ?? crypto.randomUUID();
			localStorage.setItem('n8n-browserId', id);
			const answer = await fetch('/rest/owner/setup', {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'browser-id': id },
				body: JSON.stringify(body),
			});
			return answer.status;
		}, owner);
		if (status !== 200) throw new Error(`owner setup from the page answered HTTP ${status}`);
	}

	/** Creates a workflow through the REST API (from the page, with its cookie); returns its id. */
	async createWorkflow(workflow: EditorWorkflow): Promise<string> {
		const answer = await this.page.evaluate(async (body) => {
			const response = await fetch('/rest/workflows', {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'browser-id': localStorage.getItem('n8n-browserId') ?? '' },
				body: JSON.stringify(body),
			});
			return { status: response.status, text: await response.text() };
		}, { settings: {}, active: false, ...workflow });
		const id = (JSON.parse(answer.text) as { data?: { id?: string } }).data?.id;
		if (answer.status !== 200 || !id) throw new Error(`creating workflow "${workflow.name}" answered HTTP ${answer.status}: ${answer.text.slice(0, 300)}`);
		return id;
	}

	/** Opens a workflow and waits until its nodes are on the canvas. */
	async openWorkflow(id: string, nodeCount: number): Promise<void> {
		await this.page.goto(`${this.baseUrl}/workflow/${id}`);
		await this.waitForCanvasNodes(nodeCount);
		await this.page.waitForTimeout(500); // the fit-to-view animation
	}

	/** Waits until the canvas shows at least `count` nodes. */
	async waitForCanvasNodes(count: number, timeoutMs = 60_000): Promise<void> {
		await this.page.waitForFunction((n) => document.querySelectorAll('.vue-flow__node').length >= n, count, { timeout: timeoutMs });
	}

	/** Opens the nodes panel ("What happens next?") from the canvas "+" at the top right. */
	async openNodesPanel(): Promise<void> {
		await this.page.locator('[data-test-id="node-creator-plus-button"]').click();
		await this.page.locator('[data-test-id="node-creator-search-bar"]').waitFor();
	}

	/** Opens the nodes panel from the "+" of a node's output (the only output "+" on the canvas). */
	async openNodesPanelFromOutputPlus(): Promise<void> {
		await this.page.locator('[data-test-id="canvas-handle-plus"]').first().click();
		await this.page.locator('[data-test-id="node-creator-search-bar"]').waitFor();
	}

	/** Closes the nodes panel and any node details (their close button, else Escape), as often as it takes. */
	async closePanels(): Promise<void> {
		for (let attempt = 0; attempt < 3; attempt++) {
			const open = this.page.locator('[data-test-id="node-creator"], [data-test-id="ndv"]');
			if ((await open.count()) === 0) return;
			const close = this.page.locator('[data-test-id="ndv-close-button"]:visible, [data-test-id="back-to-canvas"]:visible').first();
			if (await close.count()) await close.click().catch(() => undefined);
			else await this.page.keyboard.press('Escape');
			await this.page.waitForTimeout(300);
		}
	}

	/**
	 * Types `text` into the open nodes panel's search and returns the node names it lists, once they include every
	 * `expected` name or after `timeoutMs` (then whatever it lists, for the test to report).
	 */
	async searchNodes(text: string, expected: readonly string[], timeoutMs = 10_000): Promise<string[]> {
		const search = this.page.locator('[data-test-id="node-creator-search-bar"]');
		await search.fill('');
		await search.pressSequentially(text);
		const listed = () => this.page.locator('[data-test-id="node-creator-item-name"]').allTextContents();
		const deadline = Date.now() + timeoutMs;
		let names = await listed();
		while (!expected.every((name) => names.includes(name)) && Date.now() < deadline) {
			await this.page.waitForTimeout(200);
			names = await listed();
		}
		return names.map((name) => name.trim());
	}

	/** Picks a listed node in the open panel (and confirms "Add to workflow" where n8n shows a community node's details first). */
	async addListedNode(name: string): Promise<void> {
		await this.page.locator('[data-test-id="node-creator-item-name"]', { hasText: name }).first().click();
		const add = this.page.getByRole('button', { name: 'Add to workflow' });
		if (await add.isVisible({ timeout: 2_000 }).catch(() => false)) await add.click();
	}

	/** Clicks "Execute workflow" and waits until n8n says the run has finished (or `timeoutMs`). */
	async executeWorkflow(timeoutMs = 120_000): Promise<void> {
		await this.page.locator('[data-test-id="execute-workflow-button"]').first().click();
		await this.page.waitForFunction(
			() => !document.querySelector('[data-test-id="stop-execution-button"]') && document.querySelectorAll('[data-test-id="canvas-node-status-success"], [data-test-id="canvas-node-status-error"]').length > 0,
			undefined,
			{ timeout: timeoutMs, polling: 250 },
		);
	}

	/** Opens a node's details (its parameters, input and output) by double-clicking it on the canvas. */
	async openNode(name: string): Promise<void> {
		await this.page.locator('[data-test-id="canvas-node"]', { hasText: name }).first().dblclick();
		await this.page.locator('[data-test-id="ndv"]').first().waitFor({ timeout: 15_000 });
	}

	/**
	 * The name n8n gives a new credential for the open node (its credential button, "Connect to …" in 2.41 or the
	 * select's "Create new credential" in 2.0): the name the credential dialog shows. The dialog is closed again.
	 */
	async newCredentialName(): Promise<string> {
		const connect = this.page.getByText(/^Connect to /).first();
		if (await connect.isVisible().catch(() => false)) await connect.click();
		else {
			await this.page.locator('[data-test-id="node-credentials-select"]').first().click();
			await this.page.locator('[data-test-id="node-credentials-select-item-new"]').first().click();
		}
		const name = this.page.locator('[data-test-id="credential-name"]').first();
		await name.waitFor({ timeout: 15_000 });
		const text = (await name.innerText()).trim();
		await this.page.keyboard.press('Escape');
		return text;
	}

	/** Switches the open node details' output panel to a view (Schema, Table, JSON, Binary). */
	async showOutputAs(view: 'Schema' | 'Table' | 'JSON' | 'Binary'): Promise<void> {
		await this.page.locator('[data-test-id="output-panel"]').getByText(view, { exact: true }).first().click();
	}

	/**
	 * The text the open node details' output panel shows, once it matches `pattern` (it renders a moment after a
	 * view is chosen) or after `timeoutMs`: then whatever it shows, for the test to report.
	 */
	async outputPanelText(pattern?: RegExp, timeoutMs = 10_000): Promise<string> {
		const panel = this.page.locator('[data-test-id="output-panel"]').first();
		const deadline = Date.now() + timeoutMs;
		let text = await panel.innerText();
		while (pattern && !pattern.test(text) && Date.now() < deadline) {
			await this.page.waitForTimeout(200);
			text = await panel.innerText();
		}
		return text;
	}

	/** Saves a screenshot of the page. */
	async screenshot(file: string): Promise<void> {
		await fsp.mkdir(path.dirname(file), { recursive: true });
		await this.page.screenshot({ path: file });
	}
}
