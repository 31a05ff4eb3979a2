/**
 * Check that a real n8n knows this package's node types and credential when the package is installed
 * as a community package, against the local relay simulator (test/relay-sim, on 127.0.0.1):
 *   1. Start -> Code (2 prompts) -> Concurrent Submit -> Concurrent Collect -> Read/Write Files (write)
 *   2. Start -> FLUX 3 Image with a wrong API key: must fail with OUR error, not "Unrecognized node type".
 *
 *   ts-node --transpile-only scripts/n8n/packageCheck.ts [--package-dir DIR] [--link] [--keep]
 */
import { existsSync, promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startRelaySimulator } from '../../test/relay-sim';
import {
	createN8nHome,
	executeWorkflow,
	executionOrder,
	importCredentials,
	importWorkflow,
	nodeItems,
	type ExecuteResult,
	type N8nHome,
	type WorkflowJson,
} from './realN8n';

function argValue(flag: string): string | undefined {
	const i = process.argv.indexOf(flag);
	return i >= 0 ? process.argv[i + 1] : undefined;
}

function check(condition: unknown, message: string): asserts condition {
	if (!condition) throw new Error(`CHECK FAILED: ${message}`);
	process.stderr.write(`  ok - ${message}\n`);
}

function trigger() {
	return { name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} };
}

function describe(res: ExecuteResult): string {
	const e = res.error;
	return `exit ${res.exitCode}, ${res.durationMs} ms, error ${e ? JSON.stringify({ name: e.name, message: e.message, description: e.description, node: e.node?.name }) : 'none'}`;
}

function assertKnown(res: ExecuteResult, label: string): void {
	const all = res.stdout + res.stderr;
	check(!/Unrecognized node type|Unrecognized credential type/i.test(all), `${label}: node types and credential recognized`);
	check(!!res.run, `${label}: run data parsed`);
}

async function main(): Promise<void> {
	const packageDir = path.resolve(argValue('--package-dir') ?? path.join(__dirname, '..', '..'));
	const keep = process.argv.includes('--keep');
	const outputDir = await fsp.mkdtemp(path.join(tmpdir(), 'real-n8n-out-'));
	const sim = await startRelaySimulator({ latencyMs: 300 });
	const home: N8nHome = await createN8nHome({
		packageDir,
		outputDir,
		install: process.argv.includes('--link') ? 'link' : 'pack',
		keep,
	});
	process.stderr.write(`home ${home.dir}; ${home.packageName} installed (${home.packageInstall}) at ${home.packageInstallDir}\n`);
	process.stderr.write(`relay simulator at ${sim.url}\n`);
	try {
		const [good, bad] = await importCredentials(home, [
			{ name: 'FLUX sim', type: 'fluxApi', data: { apiStyle: 'relay', baseUrl: sim.url, apiKey: sim.apiKey } },
			{ name: 'FLUX sim, wrong key', type: 'fluxApi', data: { apiStyle: 'relay', baseUrl: sim.url, apiKey: 'wrong-key' } },
		]);
		const cred = (c: typeof good) => ({ fluxApi: { id: c.id!, name: c.name } });

		const concurrent: WorkflowJson = {
			name: 'package check: submit -> collect -> write',
			nodes: [
				trigger(),
				{
					name: 'Prompts',
					type: 'n8n-nodes-base.code',
					typeVersion: 2,
					position: [200, 0],
					parameters: { jsCode: "return ['a red square', 'a blue circle'].map((prompt) => ({ json: { prompt } }));" },
				},
				{
					name: 'Submit',
					type: home.nodeType('fluxConcurrentSubmit'),
					typeVersion: 1,
					position: [400, 0],
					parameters: { prompt: '={{ $json.prompt }}' },
					credentials: cred(good),
				},
				{
					name: 'Collect',
					type: home.nodeType('concurrentCollect'),
					typeVersion: 1,
					position: [600, 0],
					parameters: { numberInputs: 1 },
				},
				{
					name: 'Write',
					type: 'n8n-nodes-base.readWriteFile',
					typeVersion: 1,
					position: [800, 0],
					parameters: {
						operation: 'write',
						fileName: `={{ ${JSON.stringify(home.outputDir + '/')} + 'slot-' + $itemIndex + '.png' }}`,
						dataPropertyName: 'data',
						options: {},
					},
				},
			],
			connections: {
				Start: { main: [[{ node: 'Prompts', type: 'main', index: 0 }]] },
				Prompts: { main: [[{ node: 'Submit', type: 'main', index: 0 }]] },
				Submit: { main: [[{ node: 'Collect', type: 'main', index: 0 }]] },
				Collect: { main: [[{ node: 'Write', type: 'main', index: 0 }]] },
			},
			settings: { executionOrder: 'v1' },
		};
		const single: WorkflowJson = {
			name: 'package check: FLUX 3 Image, wrong key',
			nodes: [
				trigger(),
				{
					name: 'FLUX 3 Image',
					type: home.nodeType('fluxImage'),
					typeVersion: 1,
					position: [220, 0],
					parameters: { prompt: 'a red square' },
					credentials: cred(bad),
				},
			],
			connections: { Start: { main: [[{ node: 'FLUX 3 Image', type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1' },
		};

		const id1 = await importWorkflow(home, concurrent);
		const res1 = await executeWorkflow(home, id1, { timeoutMs: 180_000 });
		process.stderr.write(`${concurrent.name}: ${describe(res1)}\n  order: ${executionOrder(res1).join(' -> ')}\n`);
		if (!res1.ok) process.stderr.write(res1.stdout.slice(-3000) + '\n' + res1.stderr.slice(-3000) + '\n');
		assertKnown(res1, concurrent.name!);
		check(res1.ok, 'submit -> collect ran without error');
		const collected = nodeItems(res1, 'Collect');
		process.stderr.write(`  Collect output 0: ${JSON.stringify(collected.map((i) => ({ json: i.json, binary: Object.keys(i.binary ?? {}) })))}\n`);
		check(collected.length === 2, 'Collect output 2 items');
		for (const n of [0, 1]) check(existsSync(path.join(home.outputDir!, `slot-${n}.png`)), `slot-${n}.png written`);
		process.stderr.write(`  simulator: ${sim.log.submits.length} submits, ${sim.log.polls} polls, ${sim.log.downloads} downloads\n`);

		const id2 = await importWorkflow(home, single);
		const res2 = await executeWorkflow(home, id2, { timeoutMs: 180_000 });
		process.stderr.write(`${single.name}: ${describe(res2)}\n`);
		process.stderr.write(`  resultData.error keys: ${Object.keys(res2.error ?? {}).join(', ')}\n`);
		assertKnown(res2, single.name!);
		check(res2.exitCode === 1 && !!res2.error, 'wrong key: exit 1 with resultData.error');
		process.stderr.write('PACKAGE CHECK OK\n');
	} finally {
		await home.cleanup();
		await sim.close();
		if (!keep) await fsp.rm(outputDir, { recursive: true, force: true });
	}
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
