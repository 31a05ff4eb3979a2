/**
 * Reference images in both of n8n's binary modes, in a REAL n8n (the version FLUX_E2E_N8N selects).
 * n8n's workflow setting `binaryMode: 'combined'` (n8n 2.x, after 2.0) makes the engine move every
 * stored binary a node outputs from `item.binary[key]` into `item.json._files[key]`; a node that read
 * `item.binary` directly would not find the reference photo there. n8n 2.0.3 has no such setting (it
 * ignores it: separate mode), so on 2.0.3 both workflows run in separate mode.
 *
 * Each workflow: Code node (a prompt and a PNG in binary `photo`) → FLUX 3 Image with reference image
 * `photo`, and → Concurrent Submit (same) → Collect. The relay simulator records what was sent.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { REPO_ROOT } from '../../scripts/examples';
import {
	compareVersions,
	createN8nHome,
	executeWorkflow,
	importCredentials,
	importWorkflows,
	nodeItems,
	type ExecuteResult,
	type N8nHome,
	type WorkflowJson,
} from '../../scripts/n8n';
import { startRelaySimulator, type RelaySimulator } from '../../relay-sim';
import { encodeRgbPng, textChunk } from '../../relay-sim/pngCodec';

const API_KEY = `sim-e2e-${randomBytes(16).toString('hex')}`;
const log = (line: string) => process.stderr.write(`[e2e binary modes] ${line}\n`);
const MODES = ['separate', 'combined'] as const;
type Mode = (typeof MODES)[number];

/** A 2×2 PNG that names itself, the reference photo of every job. */
const PHOTO = encodeRgbPng(2, 2, Buffer.alloc(12, 200), [textChunk('photo', 'binary-modes reference')]);

let sim: RelaySimulator;
let home: N8nHome | undefined;
let outDir: string;
const results: Partial<Record<Mode, ExecuteResult>> = {};

function workflow(mode: Mode, credential: { id: string; name: string }): WorkflowJson {
	const fluxApi = { fluxApi: credential };
	const reference = { referenceImages: { images: [{ source: 'photo' }] } };
	const jsCode = `return [{ json: { prompt: '${mode} mode' }, binary: { photo: { data: '${PHOTO.toString('base64')}', mimeType: 'image/png', fileName: 'photo.png' } } }];`;
	const node = (name: string, type: string, parameters: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
		name,
		type,
		typeVersion: type === 'n8n-nodes-base.code' ? 2 : 1,
		position: [0, 0],
		parameters,
		...extra,
	});
	return {
		name: `binary mode ${mode}`,
		settings: { executionOrder: 'v1', binaryMode: mode },
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', {}),
			node('Photo', 'n8n-nodes-base.code', { jsCode }),
			node('Serial', home!.nodeType('fluxImage'), { prompt: '={{ $json.prompt }} serial', ...reference }, { credentials: fluxApi }),
			node('Submit', home!.nodeType('fluxConcurrentSubmit'), { prompt: '={{ $json.prompt }} twin', ...reference }, { credentials: fluxApi }),
			node('Collect', home!.nodeType('concurrentCollect'), { numberInputs: 1 }),
		],
		connections: {
			Start: { main: [[{ node: 'Photo', type: 'main', index: 0 }]] },
			Photo: {
				main: [
					[
						{ node: 'Serial', type: 'main', index: 0 },
						{ node: 'Submit', type: 'main', index: 0 },
					],
				],
			},
			Submit: { main: [[{ node: 'Collect', type: 'main', index: 0 }]] },
		},
	};
}

beforeAll(async () => {
	sim = await startRelaySimulator({ apiKey: API_KEY, latencyMs: 50 });
	outDir = await fsp.mkdtemp(path.join(tmpdir(), 'flux-e2e-binary-modes-'));
	home = await createN8nHome({ packageDir: REPO_ROOT, outputDir: outDir, log });
	const [saved] = await importCredentials(home, [{ name: 'FLUX binary modes', type: 'fluxApi', data: { apiStyle: 'relay', baseUrl: sim.url, apiKey: API_KEY } }]);
	const credential = { id: String(saved.id), name: saved.name };
	const ids = await importWorkflows(home, MODES.map((mode) => workflow(mode, credential)));
	for (const [i, mode] of MODES.entries()) {
		results[mode] = await executeWorkflow(home, ids[i], { timeoutMs: 4 * 60_000 });
		log(`${mode}: exit ${results[mode]!.exitCode}, ${results[mode]!.durationMs} ms, ${results[mode]!.ok ? 'ok' : 'FAILED'}`);
	}
}, 20 * 60_000);

afterAll(async () => {
	await home?.cleanup();
	await sim?.close();
	if (outDir) await fsp.rm(outDir, { recursive: true, force: true });
});

function run(mode: Mode): ExecuteResult {
	const result = results[mode];
	if (!result) throw new Error(`the ${mode} workflow did not run (see beforeAll)`);
	if (!result.ok) {
		throw new Error(`the ${mode} workflow failed: ${result.error?.message ?? ''}\n${(result.stdout + result.stderr).split('\n').slice(-30).join('\n')}`);
	}
	return result;
}

/** Where n8n put the binary `key` of an item: item.binary (separate) or item.json._files (combined). */
function binaryOf(item: { json: Record<string, unknown>; binary?: Record<string, unknown> }, key: string): Record<string, unknown> | undefined {
	const files = item.json._files as Record<string, Record<string, unknown>> | undefined;
	return (item.binary?.[key] as Record<string, unknown> | undefined) ?? files?.[key];
}

describe.each(MODES)('binaryMode: %s', (mode) => {
	it('both the serial node and the concurrent twin send the reference photo', () => {
		run(mode);
		for (const suffix of ['serial', 'twin']) {
			const submit = sim.log.submits.find((s) => s.prompt === `${mode} mode ${suffix}`);
			expect(submit).toBeDefined();
			expect((submit!.body as { images?: string[] }).images).toEqual([PHOTO.toString('base64')]);
		}
	});

	it('the generated images come out as n8n binaries', () => {
		const result = run(mode);
		for (const name of ['Serial', 'Collect']) {
			const [item] = nodeItems(result, name);
			expect(binaryOf(item, 'data')).toMatchObject({ mimeType: 'image/png' });
		}
	});
});

it('n8n put the binaries where the mode says (combined mode exists from n8n 2.41 on in our matrix)', () => {
	const version = home!.n8nVersion;
	const photo = (mode: Mode) => nodeItems(run(mode), 'Photo')[0];
	expect(photo('separate').binary?.photo).toBeDefined();
	if (compareVersions(version, '2.41.0') >= 0) {
		// Really combined: nothing left in item.binary, the photo is in the JSON.
		expect(photo('combined').binary?.photo).toBeUndefined();
		expect((photo('combined').json._files as Record<string, unknown>).photo).toMatchObject({ mimeType: 'image/png' });
		expect((nodeItems(run('combined'), 'Serial')[0].json._files as Record<string, unknown>).data).toBeDefined();
	} else {
		expect(photo('combined').binary?.photo).toBeDefined(); // n8n 2.0: no combined mode
	}
});
