/**
 * Screenshots of the REAL n8n editor for the README (n8n from the cache, FLUX_E2E_N8N picks the version; this
 * package installed from its packed tarball), taken in headless Chromium through scripts/n8n/editorBrowser.ts.
 *
 *   ts-node --transpile-only scripts/screenshot.ts [--example minimal|batch] [--out docs/example-workflow.png]
 *   ts-node --transpile-only scripts/screenshot.ts --scene nodes-panel [--out docs/nodes-panel-search.png]
 *   ts-node --transpile-only scripts/screenshot.ts --scene failed-run [--out docs/failed-placeholder-run.png]
 *       [--width 1440] [--height 900] [--chromium /usr/bin/chromium]
 *
 * Scenes: an example workflow on the canvas; the nodes panel searched for "FLUX"; a Placeholder batch with a slot
 * the bundled simulator refuses, run from the editor, the collector's output with its warning. Needs `npm run
 * build` first and a Chromium (Debian: apt-get install chromium). Everything listens on 127.0.0.1 and is stopped
 * at the end.
 */
import { mkdtempSync, promises as fsp, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { startRelaySimulator, type RelaySimulator } from '../relay-sim';
import { failedSlotWorkflow, findTheNodesWorkflow, REFUSED_MARK } from './editorScenes';
import { EXAMPLE_CREDENTIAL_NAME, EXAMPLES, REPO_ROOT, loadExample, withOutputFolder } from './examples';
import { createN8nHome, importCredentials, importWorkflows, type N8nHome } from './n8n';
import { launchEditorBrowser, N8nEditor, type EditorBrowser } from './n8n/editorBrowser';
import { startN8nServer, type N8nServer } from './n8n/n8nServer';

function arg(flag: string, fallback: string): string {
	const i = process.argv.indexOf(flag);
	return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const log = (line: string) => process.stderr.write(`[screenshot] ${line}\n`);

const SCENES = { example: 'example-workflow.png', 'nodes-panel': 'nodes-panel-search.png', 'failed-run': 'failed-placeholder-run.png' } as const;
type Scene = keyof typeof SCENES;

const ALL_NODES = ['FLUX 3 Image', 'FLUX 3 Image Concurrent Submit', 'Concurrent Collect Images', 'FLUX 3 Video', 'FLUX 3 Video Concurrent Submit', 'Concurrent Collect Videos'];

interface Stage {
	home: N8nHome;
	server: N8nServer;
	browser: EditorBrowser;
	editor: N8nEditor;
	credential: { id: string; name: string };
	sim?: RelaySimulator;
}

async function main(): Promise<void> {
	const scene = arg('--scene', 'example') as Scene;
	if (!(scene in SCENES)) throw new Error(`--scene must be ${Object.keys(SCENES).join(', ')}`);
	const out = path.resolve(arg('--out', path.join(REPO_ROOT, 'docs', SCENES[scene])));
	const files = mkdtempSync(path.join(tmpdir(), 'flux-shot-files-'));
	const sim = scene === 'failed-run' ? await startRelaySimulator({ latencyMs: 300 }) : undefined;
	sim?.setFault(REFUSED_MARK, { on: 'poll', finalStatus: 'Content Moderated' });
	const home = await createN8nHome({ packageDir: REPO_ROOT, outputDir: files, log });
	let stage: Partial<Stage> = { home, sim };
	try {
		// The examples' credential name, so the nodes show it selected (a simulator's, or one never used).
		const data = sim ? { apiStyle: 'relay', baseUrl: sim.url, apiKey: sim.apiKey } : { apiStyle: 'bfl', baseUrl: 'https://api.bfl.ai', apiKey: 'not-a-real-key' };
		const [saved] = await importCredentials(home, [{ name: EXAMPLE_CREDENTIAL_NAME, type: 'fluxApi', data }]);
		const credential = { id: String(saved.id), name: saved.name };
		const exampleId = scene === 'example' ? await importExample(home) : undefined;
		const server = await startN8nServer(home, { log });
		stage = { ...stage, server, credential };
		const browser = await launchEditorBrowser({
			executablePath: process.argv.includes('--chromium') ? arg('--chromium', '') : undefined,
			width: Number(arg('--width', '1440')),
			height: Number(arg('--height', '900')),
		});
		const editor = new N8nEditor(browser.page, server.url);
		stage = { ...stage, browser, editor };
		await editor.setUpOwner();
		log(`owner set up on ${server.url} (n8n ${home.n8nVersion}); scene ${scene}`);
		if (scene === 'example') await exampleScene(editor, exampleId!);
		if (scene === 'nodes-panel') await nodesPanelScene(editor, credential);
		if (scene === 'failed-run') await failedRunScene(editor, credential);
		await editor.screenshot(out);
		log(`wrote ${path.relative(process.cwd(), out)} (${readFileSync(out).length} bytes)`);
	} finally {
		await stage.browser?.close();
		await stage.server?.stop();
		await home.cleanup();
		await sim?.close();
		await fsp.rm(files, { recursive: true, force: true });
	}
}

/** Imports the example `--example` names (its output folder pointed where the official image has it). */
async function importExample(home: N8nHome): Promise<string> {
	const key = arg('--example', 'minimal');
	const info = EXAMPLES.find((e) => e.key === key);
	if (!info) throw new Error(`--example must be ${EXAMPLES.map((e) => e.key).join(' or ')}`);
	const [id] = await importWorkflows(home, [withOutputFolder(loadExample(info), '/home/node/.n8n-files')]);
	return id;
}

/** The example on the canvas, fitted to the view ("1" is n8n's zoom-to-fit shortcut). */
async function exampleScene(editor: N8nEditor, id: string): Promise<void> {
	const key = arg('--example', 'minimal');
	const count = loadExample(EXAMPLES.find((e) => e.key === key)!).nodes.length;
	await editor.openWorkflow(id, count);
	await editor.page.waitForTimeout(2500); // fonts and icons
	await editor.page.evaluate("document.querySelector('.vue-flow')?.dispatchEvent(new KeyboardEvent('keydown', { key: '1', bubbles: true })); true");
	await editor.page.waitForTimeout(1500);
}

/** The nodes panel ("What happens next?") searched for "FLUX", every node listed. */
async function nodesPanelScene(editor: N8nEditor, credential: { id: string; name: string }): Promise<void> {
	await editor.openWorkflow(await editor.createWorkflow(findTheNodesWorkflow(credential)), 2);
	await editor.openNodesPanel();
	const listed = await editor.searchNodes('FLUX', ALL_NODES);
	const missing = ALL_NODES.filter((name) => !listed.includes(name));
	if (missing.length > 0) throw new Error(`the nodes panel did not list ${missing.join(', ')} for "FLUX" (it listed: ${listed.join(', ')})`);
	await editor.page.waitForTimeout(800); // the icons
}

/** A Placeholder batch with a refused slot, run from the editor; the collector's output with its warning. */
async function failedRunScene(editor: N8nEditor, credential: { id: string; name: string }): Promise<void> {
	await editor.openWorkflow(await editor.createWorkflow(failedSlotWorkflow(credential)), 4);
	await editor.executeWorkflow();
	await editor.openNode('Collect');
	const output = await editor.outputPanelText(/slots? failed/);
	if (!/1 of 3 slots failed/.test(output)) throw new Error(`the collector's output shows no failed-slot warning:\n${output}`);
	await editor.page.waitForTimeout(800);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		process.exit(1);
	},
);
