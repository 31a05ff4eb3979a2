/**
 * The two example workflows (examples/*.json), imported into a REAL n8n 2.0.3 with this package
 * installed as a community package (npm pack, like the Community Nodes UI), executed with
 * `n8n execute` against the relay simulator on 127.0.0.1.
 *
 * The examples are used as they ship except for the Settings node's outputFolder; their credential
 * reference ({ id: placeholder, name: 'FLUX account' }) is resolved by n8n's import, by name.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, promises as fsp, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

import {
	EXAMPLE_CREDENTIAL_NAME,
	NODE_TYPES,
	REPO_ROOT,
	collectReports,
	exampleInfo,
	exampleOutputName,
	loadExample,
	withOutputFolder,
	type CollectReport,
	type ExampleWorkflow,
} from '../../scripts/examples';
import {
	ensureN8nInstalled,
	executeWorkflow,
	executionOrder,
	importWorkflows,
	nodeItems,
	type ExecuteResult,
	type N8nHome,
} from '../../scripts/n8n';
import { readPngText, readPromptFromPng, type RelaySimulator, type SubmitLogEntry } from '../../relay-sim';
import { startSimulatedN8n, stopSimulatedN8n, type SimulatedN8n } from './support/simulatedN8n';

/** A key that must never show up in n8n's output. */
const API_KEY = `sim-e2e-${randomBytes(16).toString('hex')}`;
const log = (line: string) => process.stderr.write(`[e2e] ${line}\n`);

interface ExampleRun {
	workflow: ExampleWorkflow;
	folder: string;
	result: ExecuteResult;
	submits: SubmitLogEntry[];
	peakActiveTasks: number;
}

let e2e: SimulatedN8n | undefined;
let sim: RelaySimulator;
let home: N8nHome | undefined;
const runs: Partial<Record<'minimal' | 'batch', ExampleRun>> = {};

function describeFailure(result: ExecuteResult): string {
	return [
		`exit ${result.exitCode}${result.timedOut ? ' (timed out)' : ''}, ${result.durationMs} ms`,
		`error: ${JSON.stringify(result.error ? { message: result.error.message, node: result.error.node?.name } : null)}`,
		(result.stdout + result.stderr).split('\n').slice(-40).join('\n'),
	].join('\n');
}

function run(key: 'minimal' | 'batch'): ExampleRun {
	const r = runs[key];
	if (!r) throw new Error(`the ${key} example did not run (see beforeAll)`);
	if (!r.result.ok) throw new Error(`the ${key} example failed in n8n:\n${describeFailure(r.result)}`);
	return r;
}

beforeAll(async () => {
	// Cold cache: installs n8n (~6 min, once); warm: returns at once.
	await ensureN8nInstalled({ log });
	const latencyMs = { min: 200, max: 900, seed: 'e2e' };
	e2e = await startSimulatedN8n({ name: 'examples', apiKey: API_KEY, sim: { latencyMs }, credentialName: EXAMPLE_CREDENTIAL_NAME, log });
	({ sim, home } = e2e);

	const keys = ['minimal', 'batch'] as const;
	const prepared = keys.map((key) => {
		const info = exampleInfo(key);
		const folder = path.join(home!.outputDir!, exampleOutputName(info));
		mkdirSync(folder, { recursive: true });
		return { key, folder, workflow: withOutputFolder(loadExample(info), folder) };
	});
	const ids = await importWorkflows(home, prepared.map((p) => p.workflow));
	for (const [i, p] of prepared.entries()) {
		sim.reset();
		const result = await executeWorkflow(home, ids[i], { timeoutMs: 5 * 60_000 });
		log(`${p.key}: exit ${result.exitCode}, ${result.durationMs} ms, ${result.ok ? 'ok' : 'FAILED'}`);
		runs[p.key] = {
			workflow: p.workflow,
			folder: p.folder,
			result,
			submits: [...sim.log.submits],
			peakActiveTasks: sim.log.peakActiveTasks,
		};
		expect(sim.log.credentialOnDownload).toBe(false);
		expect(sim.log.unauthorized).toBe(0);
	}
}, 45 * 60 * 1000);

afterAll(async () => {
	await stopSimulatedN8n(e2e);
});

describe('examples/flux-3-image-concurrent.json (two submits → one collector → two writes)', () => {
	/** The submit node feeding each collector input, in input order: slot N comes from input N. */
	function promptsBySlot(workflow: ExampleWorkflow): string[] {
		const connections = workflow.connections as Record<string, { main: Array<Array<{ node: string; index: number }>> }>;
		const feeding: Array<[number, string]> = [];
		for (const [from, conn] of Object.entries(connections)) {
			for (const c of conn.main.flat()) if (c.node === 'Collect') feeding.push([c.index, from]);
		}
		feeding.sort((a, b) => a[0] - b[0]);
		return feeding.map(([, name]) => String(workflow.nodes.find((n) => n.name === name)?.parameters?.prompt));
	}

	it('runs every node in real n8n, the credential matched by name', () => {
		const { result, workflow } = run('minimal');
		expect(result.stdout + result.stderr).not.toMatch(/Unrecognized node type|Unrecognized credential type/i);
		const ran = new Set(executionOrder(result));
		for (const node of workflow.nodes.filter((n) => n.type !== 'n8n-nodes-base.stickyNote')) expect(ran).toContain(node.name);
	});

	it('writes each slot’s own image, in slot order', () => {
		const { result, workflow, folder, submits } = run('minimal');
		const expected = promptsBySlot(workflow);
		expect(expected).toHaveLength(2);
		expect(new Set(expected).size).toBe(2);

		const images = nodeItems(result, 'Collect', 0, 0);
		expect(images.map((i) => i.json.slot)).toEqual([1, 2]);
		expect(images.map((i) => i.json.input)).toEqual([1, 2]);
		expect(images.map((i) => i.json.status)).toEqual(['success', 'success']);

		const written = nodeItems(result, 'Write Images').map((i) => String(i.json.fileName));
		expect(written).toEqual([path.join(folder, 'slot-01.png'), path.join(folder, 'slot-02.png')]);
		expected.forEach((prompt, index) => {
			const file = written[index];
			expect(existsSync(file)).toBe(true);
			expect(readPromptFromPng(readFileSync(file))).toBe(prompt);
		});
		// One paid job per prompt: nothing submitted twice.
		expect(submits.map((s) => s.prompt).sort()).toEqual([...expected].sort());
	});

	it('writes the collector’s report', () => {
		const { result, workflow, folder } = run('minimal');
		const [report] = collectReports(result, workflow);
		expect(report).toMatchObject({ total: 2, counts: { success: 2, failed: 0, skipped_error: 0, cancelled: 0 }, allSucceeded: true });
		const onDisk = JSON.parse(readFileSync(path.join(folder, 'report.json'), 'utf8')) as CollectReport;
		expect(onDisk).toEqual(report);
		expect(onDisk.slots.map((s) => s.slot)).toEqual([1, 2]);
		expect(onDisk.slots.every((s) => typeof s.taskId === 'string' && (s.timings?.runMs ?? -1) >= 0)).toBe(true);
	});
});

describe('examples/flux-3-image-sku-batch.json (45 SKUs, Loop Over Items 30 at a time)', () => {
	function skus(result: ExecuteResult): Map<string, string> {
		const items = nodeItems(result, 'SKUs');
		return new Map(items.map((i) => [String(i.json.sku), String(i.json.prompt)]));
	}

	it('loops twice: 30 slots, then 15, each in slot order, all at once within a batch', () => {
		const { result, workflow, peakActiveTasks } = run('batch');
		expect(skus(result).size).toBe(45);
		expect(result.runData?.['Submit']).toHaveLength(2);
		const collected = [0, 1].map((runIndex) => nodeItems(result, 'Collect', runIndex, 0));
		expect(collected.map((items) => items.length)).toEqual([30, 15]);
		for (const items of collected) expect(items.map((i) => i.json.slot)).toEqual(items.map((_, k) => k + 1));

		const reports = collectReports(result, workflow);
		expect(reports.map((r) => [r.total, r.counts.success, r.allSucceeded])).toEqual([
			[30, 30, true],
			[15, 15, true],
		]);
		// The pool ran the batch concurrently, never more than one collector's 30 slots.
		expect(peakActiveTasks).toBeGreaterThan(1);
		expect(peakActiveTasks).toBeLessThanOrEqual(30);
	});

	it('names each file after its SKU (pairing through Collect and Submit) and the file holds that SKU’s prompt', () => {
		const { result, folder, submits } = run('batch');
		const prompts = skus(result);
		const files = readdirSync(folder).filter((f) => f.endsWith('.png')).sort();
		expect(files).toEqual([...prompts.keys()].map((sku) => `${sku}.png`).sort());
		for (const [sku, prompt] of prompts) {
			expect(readPromptFromPng(readFileSync(path.join(folder, `${sku}.png`)))).toBe(prompt);
		}
		expect(submits).toHaveLength(45);
		expect(new Set(submits.map((s) => s.prompt)).size).toBe(45);
	});

	it('sends each SKU’s own reference photo with its prompt', () => {
		const { result, submits } = run('batch');
		const prompts = skus(result);
		for (const submit of submits) {
			const images = (submit.body as { images?: string[] }).images;
			expect(images).toHaveLength(1);
			const sku = readPngText(Buffer.from(images![0], 'base64')).sku;
			expect(prompts.get(sku)).toBe(submit.prompt);
		}
	});

	it('writes one report row per image when the loop is done', () => {
		const { folder } = run('batch');
		const rows = JSON.parse(readFileSync(path.join(folder, 'report.json'), 'utf8')) as Array<{ status: string; fileName: string }>;
		expect(rows).toHaveLength(45);
		expect(rows.every((r) => r.status === 'success')).toBe(true);
		expect(rows.map((r) => path.basename(r.fileName)).sort()).toEqual(
			Array.from({ length: 45 }, (_, i) => `SKU-${1001 + i}.png`),
		);
	});
});

describe('a later night with refusals (the SKU batch again, Cache: Refresh, three SKUs moderated)', () => {
	let night: { folder: string; result: ExecuteResult; refused: string[]; before: Map<string, Buffer> } | undefined;

	beforeAll(async () => {
		const first = run('batch');
		const prompts = [...nodeItems(first.result, 'SKUs').map((i) => [String(i.json.sku), String(i.json.prompt)] as const)];
		const refused = [prompts[3], prompts[17], prompts[40]];
		// Last night's images, copied to the folder the second night writes to.
		const folder = path.join(home!.outputDir!, 'batch-second-night');
		mkdirSync(folder, { recursive: true });
		const before = new Map<string, Buffer>();
		for (const file of readdirSync(first.folder).filter((f) => f.endsWith('.png'))) {
			const bytes = readFileSync(path.join(first.folder, file));
			before.set(file, bytes);
			await fsp.writeFile(path.join(folder, file), bytes);
		}
		const workflow = withOutputFolder(loadExample(exampleInfo('batch')), folder);
		const submit = workflow.nodes.find((n) => n.name === 'Submit')!;
		submit.parameters = { ...submit.parameters, options: { cache: 'refresh' } };
		const [id] = await importWorkflows(home!, [workflow]);
		sim.reset();
		for (const [, prompt] of refused) sim.setFault(prompt, { on: 'poll', finalStatus: 'Content Moderated' });
		const result = await executeWorkflow(home!, id, { timeoutMs: 5 * 60_000 });
		log(`batch, second night: exit ${result.exitCode}, ${result.durationMs} ms, ${result.ok ? 'ok' : 'FAILED'}`);
		sim.clearFaults();
		night = { folder, result, refused: refused.map(([sku]) => sku), before };
	}, 10 * 60 * 1000);

	it('writes each refused SKU’s red placeholder as SKU.failed.png and keeps last night’s good SKU.png', () => {
		const { folder, result, refused, before } = night!;
		if (!result.ok) throw new Error(`the second night failed in n8n:\n${describeFailure(result)}`);
		for (const sku of refused) {
			expect(readFileSync(path.join(folder, `${sku}.png`)).equals(before.get(`${sku}.png`)!)).toBe(true);
			const placeholder = readFileSync(path.join(folder, `${sku}.failed.png`));
			expect(readPromptFromPng(placeholder)).toBeUndefined(); // not a generated image: the red stand-in
			expect(placeholder.readUInt32BE(16)).toBe(64);
		}
		const failedFiles = readdirSync(folder).filter((f) => f.endsWith('.failed.png')).sort();
		expect(failedFiles).toEqual(refused.map((sku) => `${sku}.failed.png`).sort());
	});

	it('says so on the collector in the editor: an execution hint per loop batch that had refusals', () => {
		const { result } = night!;
		const hints = (result.runData?.['Collect'] ?? []).flatMap((task) => (task as { hints?: Array<{ message: string }> }).hints ?? []);
		expect(hints.map((h) => h.message)).toEqual([
			expect.stringMatching(/^2 of 30 slots failed: each keeps its place in Images with status failed and a red 64×64 image\. The Report output says why/),
			expect.stringMatching(/^1 of 15 slots failed:/),
		]);
	});
});

describe('secrets', () => {
	it.each(['minimal', 'batch'] as const)('the API key appears nowhere in n8n’s output of the %s example', (key) => {
		const { result } = run(key);
		expect(result.run).not.toBeNull();
		expect(JSON.stringify(result.run)).not.toContain(API_KEY);
		expect(result.stdout).not.toContain(API_KEY);
		expect(result.stderr).not.toContain(API_KEY);
		// The task items carry no secrets either (checked through the run data above) and are tasks.
		const tasks = nodeItems(result, key === 'minimal' ? 'Submit: Mug' : 'Submit');
		expect(tasks.length).toBeGreaterThan(0);
		expect(tasks.every((t) => t.json.type === 'n8n-nodes-flux-concurrent.task')).toBe(true);
	});

	it('the API key appears in no file the workflows wrote', async () => {
		for (const key of ['minimal', 'batch'] as const) {
			const { folder } = run(key);
			for (const file of readdirSync(folder)) {
				expect((await fsp.readFile(path.join(folder, file))).includes(API_KEY)).toBe(false);
			}
		}
	});

	it('the examples reference the credential by name and carry no key', () => {
		for (const key of ['minimal', 'batch'] as const) {
			const raw = readFileSync(path.join(REPO_ROOT, 'examples', exampleInfo(key).file), 'utf8');
			expect(raw).not.toMatch(/apiKey|sim-test-key|Bearer/);
			const workflow = JSON.parse(raw) as ExampleWorkflow;
			for (const node of workflow.nodes.filter((n) => n.type === NODE_TYPES.submit)) {
				expect(node.credentials?.fluxApi?.name).toBe(EXAMPLE_CREDENTIAL_NAME);
			}
		}
	});
});
