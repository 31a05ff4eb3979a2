/**
 * Smoke test of scripts/n8n/realN8n.ts with built-in nodes only:
 * Manual Trigger -> Code (2 items with a PNG as binary) -> Read/Write Files from Disk (write).
 * Also: a failing node (exit code / error shape) and executionOrder v1.
 *
 *   ts-node --transpile-only scripts/n8n/smoke.ts [--keep] [--package]   (--package: also load this package)
 */
import { existsSync, promises as fsp, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
	createN8nHome,
	executeWorkflow,
	executionOrder,
	importWorkflows,
	nodeItems,
	type WorkflowJson,
} from './realN8n';

// 1x1 transparent PNG
const PNG_BASE64 =
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

function check(condition: unknown, message: string): asserts condition {
	if (!condition) throw new Error(`CHECK FAILED: ${message}`);
	process.stderr.write(`  ok - ${message}\n`);
}

function writeFilesWorkflow(outputDir: string): WorkflowJson {
	return {
		name: 'smoke: write PNGs',
		nodes: [
			{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				name: 'Make PNGs',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: {
					jsCode: [
						`const png = '${PNG_BASE64}';`,
						'return [1, 2].map((n) => ({',
						'  json: { n, name: `image-${n}.png` },',
						"  binary: { data: { data: png, mimeType: 'image/png', fileName: `image-${n}.png`, fileExtension: 'png' } },",
						'}));',
					].join('\n'),
				},
			},
			{
				name: 'Write',
				type: 'n8n-nodes-base.readWriteFile',
				typeVersion: 1,
				position: [440, 0],
				parameters: {
					operation: 'write',
					fileName: `={{ ${JSON.stringify(outputDir + '/')} + $json.name }}`,
					dataPropertyName: 'data',
					options: {},
				},
			},
		],
		connections: {
			Start: { main: [[{ node: 'Make PNGs', type: 'main', index: 0 }]] },
			'Make PNGs': { main: [[{ node: 'Write', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

function failingWorkflow(): WorkflowJson {
	return {
		name: 'smoke: failing node',
		nodes: [
			{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				name: 'Boom',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [220, 0],
				parameters: { jsCode: "throw new Error('boom from smoke');" },
			},
		],
		connections: { Start: { main: [[{ node: 'Boom', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

/** Start -> A (top) -> A2, Start -> B (bottom). v1 runs branch by branch: Start, A, A2, B; v0: Start, A, B, A2. */
function orderWorkflow(executionOrderSetting: 'v0' | 'v1'): WorkflowJson {
	const noop = (name: string, y: number, x = 220) => ({
		name,
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [x, y],
		parameters: {},
	});
	return {
		name: `smoke: order ${executionOrderSetting}`,
		nodes: [
			{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			noop('A', -100),
			noop('B', 100),
			noop('A2', -100, 440),
		],
		connections: {
			Start: {
				main: [
					[
						{ node: 'A', type: 'main', index: 0 },
						{ node: 'B', type: 'main', index: 0 },
					],
				],
			},
			A: { main: [[{ node: 'A2', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: executionOrderSetting },
	};
}

async function main(): Promise<void> {
	const keep = process.argv.includes('--keep');
	const withPackage = process.argv.includes('--package');
	const outputDir = await fsp.mkdtemp(path.join(tmpdir(), 'real-n8n-out-'));
	const t0 = Date.now();
	const home = await createN8nHome({
		packageDir: path.resolve(__dirname, '..', '..'),
		outputDir,
		keep,
		withoutPackage: !withPackage,
	});
	process.stderr.write(`home ${home.dir} ready in ${Date.now() - t0} ms; output ${home.outputDir}\n`);
	try {
		const t = Date.now();
		const [id, failId, orderV1, orderV0] = await importWorkflows(home, [
			writeFilesWorkflow(home.outputDir!),
			failingWorkflow(),
			orderWorkflow('v1'),
			orderWorkflow('v0'),
		]);
		process.stderr.write(`import:workflow (4 workflows, first n8n command: DB migrations) ${Date.now() - t} ms\n`);

		const res = await executeWorkflow(home, id);
		process.stderr.write(`execute (write files) exit ${res.exitCode} in ${res.durationMs} ms\n`);
		if (!res.ok) process.stderr.write(res.stdout.slice(-4000) + '\n' + res.stderr.slice(-4000) + '\n');
		check(res.exitCode === 0, 'n8n execute exits 0');
		check(res.ok, 'run data parsed, no error');
		check(nodeItems(res, 'Make PNGs').length === 2, 'Code node output 2 items');
		check(nodeItems(res, 'Write').length === 2, 'Write node output 2 items');
		check(nodeItems(res, 'Make PNGs')[0].binary?.data?.mimeType === 'image/png', 'binary metadata in run data');
		for (const n of [1, 2]) {
			const file = path.join(home.outputDir!, `image-${n}.png`);
			check(existsSync(file), `${file} written`);
			check(readFileSync(file).equals(Buffer.from(PNG_BASE64, 'base64')), `image-${n}.png has the PNG bytes`);
		}
		process.stderr.write(`order: ${executionOrder(res).join(' -> ')}\n`);

		const fail = await executeWorkflow(home, failId);
		process.stderr.write(`execute (failing) exit ${fail.exitCode} in ${fail.durationMs} ms\n`);
		process.stderr.write(`error: ${JSON.stringify(fail.error, null, 2).slice(0, 1500)}\n`);
		process.stderr.write(`run.status=${fail.run?.status} lastNodeExecuted=${fail.run?.data.resultData.lastNodeExecuted}\n`);
		process.stderr.write(`Boom task: ${JSON.stringify(fail.runData?.Boom?.[0]?.error ?? null).slice(0, 600)}\n`);
		check(fail.exitCode === 1, 'failing workflow: exit code 1');
		check(!!fail.run, 'failing workflow: run data still parsed');
		check(/boom from smoke/.test(fail.error?.message ?? ''), 'failing workflow: error message in resultData.error');

		for (const [setting, oid] of [
			['v1', orderV1],
			['v0', orderV0],
		] as const) {
			const ores = await executeWorkflow(home, oid);
			const order = executionOrder(ores).join(',');
			process.stderr.write(`executionOrder ${setting}: ${order} (execute ${ores.durationMs} ms)\n`);
			check(ores.ok, `order ${setting} ran`);
			check(order === (setting === 'v1' ? 'Start,A,A2,B' : 'Start,A,B,A2'), `execute honours executionOrder ${setting}`);
		}
		process.stderr.write('SMOKE OK\n');
	} finally {
		await home.cleanup();
		if (!keep) await fsp.rm(outputDir, { recursive: true, force: true });
	}
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
