/**
 * The nodes where users look, in a REAL browser: the packed package installed in a running n8n (`n8n start`, the
 * version FLUX_E2E_N8N selects), its editor driven in headless Chromium (scripts/n8n/editorBrowser.ts). The nodes
 * panel's search finds all six nodes for "FLUX", "flux" and "Concurrent"; the "+" of Submit's Task output finds the
 * collector for "Collect" and adds it wired; a run from the editor fills the Collect output panel; a Placeholder run
 * with a refused slot shows the collector's warning there. One screenshot per check goes to a folder
 * (test-results/editor-n8n-<version>/), kept when a check fails and named in its message.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

import { failedSlotWorkflow, findTheNodesWorkflow, newCredentialWorkflow, REFUSED_MARK } from '../../scripts/editorScenes';
import { REPO_ROOT, EXAMPLE_CREDENTIAL_NAME } from '../../scripts/examples';
import { ensureN8nInstalled } from '../../scripts/n8n';
import { launchEditorBrowser, N8nEditor, type EditorBrowser } from '../../scripts/n8n/editorBrowser';
import { startN8nServer, type N8nServer } from '../../scripts/n8n/n8nServer';
import { startSimulatedN8n, stopSimulatedN8n, type SimulatedN8n } from './support/simulatedN8n';

const API_KEY = `sim-e2e-${randomBytes(16).toString('hex')}`;
const log = (line: string) => process.stderr.write(`[e2e nodes panel] ${line}\n`);

const IMAGE_NODES = ['FLUX 3 Image', 'FLUX 3 Image Concurrent Submit', 'Concurrent Collect Images'];
const VIDEO_NODES = ['FLUX 3 Video', 'FLUX 3 Video Concurrent Submit', 'Concurrent Collect Videos'];
const ALL_NODES = [...IMAGE_NODES, ...VIDEO_NODES];
const CONCURRENT_NODES = ALL_NODES.filter((name) => name.includes('Concurrent'));

let e2e: SimulatedN8n | undefined;
let server: N8nServer | undefined;
let browser: EditorBrowser | undefined;
let editor: N8nEditor;
let shots: string;
let failures = 0;

/** Runs one check; its screenshot is saved whatever happens, and a failure names the folder that keeps it. */
async function check(name: string, body: () => Promise<void>): Promise<void> {
	const file = path.join(shots, `${name}.png`);
	try {
		await body();
	} catch (error) {
		failures++;
		await editor.screenshot(file).catch(() => undefined);
		const message = error instanceof Error ? error.message : String(error);
		throw new Error(`${message}\n(screenshot of this check: ${file}; all of this run's: ${shots})`);
	}
	await editor.screenshot(file);
}

beforeAll(async () => {
	await ensureN8nInstalled({ log });
	// Not the default name: the new-credential check reads the name n8n proposes, which must not be taken yet.
	e2e = await startSimulatedN8n({ name: 'editor', apiKey: API_KEY, sim: { latencyMs: 300 }, credentialName: 'FLUX (simulator)', log });
	shots = path.join(REPO_ROOT, 'test-results', `editor-n8n-${e2e.home.n8nVersion}`);
	await fsp.rm(shots, { recursive: true, force: true });
	server = await startN8nServer(e2e.home, { log });
	browser = await launchEditorBrowser();
	editor = new N8nEditor(browser.page, server.url);
	await editor.setUpOwner();
}, 20 * 60_000);

afterAll(async () => {
	await browser?.close();
	await server?.stop();
	await stopSimulatedN8n(e2e);
	if (failures === 0 && shots) await fsp.rm(shots, { recursive: true, force: true });
});

describe('the nodes panel', () => {
	let workflowId: string;

	beforeAll(async () => {
		workflowId = await editor.createWorkflow(findTheNodesWorkflow(e2e!.credential));
		await editor.openWorkflow(workflowId, 2);
	});

	it.each([
		['FLUX', ALL_NODES],
		['flux', ALL_NODES],
		['Concurrent', CONCURRENT_NODES],
	])('search "%s" finds every node', async (text, expected) => {
		try {
			await check(`search-${text}`, async () => {
				await editor.openNodesPanel();
				const listed = await editor.searchNodes(text, expected);
				expect({ search: text, missing: expected.filter((name) => !listed.includes(name)), listed }).toEqual({ search: text, missing: [], listed });
			});
		} finally {
			await editor.closePanels();
		}
	});

	it('the "+" of Submit’s Task output finds Concurrent Collect Images for "Collect" and adds it wired to Submit', async () => {
		await editor.closePanels();
		await check('plus-collect', async () => {
			await editor.openNodesPanelFromOutputPlus();
			const listed = await editor.searchNodes('Collect', ['Concurrent Collect Images']);
			expect(listed).toContain('Concurrent Collect Images');
			await editor.addListedNode('Concurrent Collect Images');
			await editor.waitForCanvasNodes(3, 15_000);
			await editor.closePanels(); // and the new node's details, if they opened
			const edges = await editor.page.locator('.vue-flow__edge').count();
			expect(edges).toBe(2); // Start → Submit, Submit → Concurrent Collect Images
		});
	});

	it('a run from the editor: the Collect output panel shows the slot’s image and row', async () => {
		await check('run-from-editor', async () => {
			await editor.executeWorkflow();
			await editor.openNode('Concurrent Collect Images');
			const binary = await editor.outputPanelText(/slot-01\.png/);
			expect(binary).toMatch(/Images Branch \(1 item\)/);
			expect(binary).toMatch(/slot-01\.png/);
			expect(binary).toMatch(/image\/png/);
			expect(binary).not.toMatch(/slots? failed/);
			await editor.showOutputAs('JSON');
			expect(await editor.outputPanelText(/"status":\s*"success"/)).toMatch(/"slot":\s*1,[\s\S]*"status":\s*"success"/);
		});
		await editor.closePanels();
	});
});

describe('the AI Agent’s tools', () => {
	it('FLUX 3 Image stays an AI Agent tool: n8n lists its tool variant among the AI tools, apart from the nodes panel’s own filing', async () => {
		const tool = await editor.page.evaluate(async () => {
			const types = (await (await fetch('/types/nodes.json')).json()) as Array<{ name: string; codex?: { categories?: string[]; subcategories?: Record<string, string[]> } }>;
			return types.find((type) => type.name === 'n8n-nodes-flux-concurrent.fluxImageTool') ?? null;
		});
		expect(tool?.codex?.categories).toContain('AI');
		expect(tool?.codex?.subcategories?.AI).toContain('Tools');
	});
});

describe('a new FLUX API credential', () => {
	it('is named as the examples expect, so importing them matches it', async () => {
		await editor.openWorkflow(await editor.createWorkflow(newCredentialWorkflow()), 2);
		await check('new-credential-name', async () => {
			await editor.openNode('Submit');
			expect(await editor.newCredentialName()).toBe(EXAMPLE_CREDENTIAL_NAME);
		});
		await editor.closePanels();
	});
});

describe('a Placeholder run with a refused slot', () => {
	it('shows on the collector: how many slots failed and that the Report says why', async () => {
		e2e!.sim.setFault(REFUSED_MARK, { on: 'poll', finalStatus: 'Content Moderated' });
		const id = await editor.createWorkflow(failedSlotWorkflow(e2e!.credential));
		await editor.openWorkflow(id, 4);
		await check('placeholder-failed-slot', async () => {
			await editor.executeWorkflow();
			await editor.openNode('Collect');
			const output = await editor.outputPanelText(/slots failed/);
			expect(output).toMatch(/1 of 3 slots failed: each keeps its place in Images with status failed and a red 64×64 image\. The Report output says why/);
			expect(output).toMatch(/Images Branch \(3 items\)/);
		});
	});
});
