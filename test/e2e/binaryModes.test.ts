/**
 * Reference images in both of n8n's binary modes, in a REAL n8n (the version FLUX_E2E_N8N selects).
 * n8n's workflow setting `binaryMode: 'combined'` (n8n 2.x, after 2.0) makes the engine move every
 * stored binary a node outputs from `item.binary[key]` into `item.json._files[key]`; a node that read
 * `item.binary` directly would not find the reference photo there. n8n 2.0.3 has no such setting (it
 * ignores it: separate mode), so on 2.0.3 both workflows run in separate mode.
 *
 * Each workflow: Code node (a prompt, a PNG in binary `photo`, an MP4 in binary `clip`) → FLUX 3 Image
 * with reference image `photo`, → Concurrent Submit (same) → Collect, → FLUX 3 Video i2v with keyframe
 * `photo`, and → FLUX 3 Video v2v with start video `clip`. The relay simulator records what was sent.
 */
import { randomBytes } from 'node:crypto';

import {
	compareVersions,
	executeWorkflow,
	importWorkflows,
	nodeItems,
	type ExecuteResult,
	type N8nHome,
	type WorkflowJson,
} from '../../scripts/n8n';
import { makePromptMp4, type RelaySimulator } from '../../relay-sim';
import { startSimulatedN8n, stopSimulatedN8n, type SimulatedN8n } from './support/simulatedN8n';
import { encodeRgbPng, textChunk } from '../../relay-sim/pngCodec';

const API_KEY = `sim-e2e-${randomBytes(16).toString('hex')}`;
const log = (line: string) => process.stderr.write(`[e2e binary modes] ${line}\n`);
const MODES = ['separate', 'combined'] as const;
type Mode = (typeof MODES)[number];

/** A 256×256 PNG (the smallest BFL accepts) that names itself, the reference photo of every job. */
const PHOTO = encodeRgbPng(256, 256, Buffer.alloc(256 * 256 * 3, 200), [textChunk('photo', 'binary-modes reference')]);
/** The start video of the v2v job. */
const CLIP = makePromptMp4('binary-modes start clip');

let e2e: SimulatedN8n | undefined;
let sim: RelaySimulator;
let home: N8nHome | undefined;
const results: Partial<Record<Mode, ExecuteResult>> = {};

function workflow(mode: Mode, credential: { id: string; name: string }): WorkflowJson {
	const fluxApi = { fluxApi: credential };
	const reference = { referenceImages: { images: [{ source: 'photo' }] } };
	const photo = `{ data: '${PHOTO.toString('base64')}', mimeType: 'image/png', fileName: 'photo.png' }`;
	const clip = `{ data: '${CLIP.toString('base64')}', mimeType: 'video/mp4', fileName: 'clip.mp4' }`;
	const jsCode = `return [{ json: { prompt: '${mode} mode' }, binary: { photo: ${photo}, clip: ${clip} } }];`;
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
			node('Video i2v', home!.nodeType('fluxVideo'), { mode: 'i2v', prompt: '={{ $json.prompt }} i2v', keyframes: { frames: [{ source: 'photo' }] } }, { credentials: fluxApi }),
			node('Video v2v', home!.nodeType('fluxVideo'), { mode: 'v2v', prompt: '={{ $json.prompt }} v2v', startVideo: 'clip' }, { credentials: fluxApi }),
		],
		connections: {
			Start: { main: [[{ node: 'Photo', type: 'main', index: 0 }]] },
			Photo: {
				main: [
					[
						{ node: 'Serial', type: 'main', index: 0 },
						{ node: 'Submit', type: 'main', index: 0 },
						{ node: 'Video i2v', type: 'main', index: 0 },
						{ node: 'Video v2v', type: 'main', index: 0 },
					],
				],
			},
			Submit: { main: [[{ node: 'Collect', type: 'main', index: 0 }]] },
		},
	};
}

beforeAll(async () => {
	e2e = await startSimulatedN8n({ name: 'binary-modes', apiKey: API_KEY, sim: { latencyMs: 50 }, credentialName: 'FLUX binary modes', log });
	({ sim, home } = e2e);
	const credential = e2e.credential;
	const ids = await importWorkflows(home, MODES.map((mode) => workflow(mode, credential)));
	for (const [i, mode] of MODES.entries()) {
		results[mode] = await executeWorkflow(home, ids[i], { timeoutMs: 4 * 60_000 });
		log(`${mode}: exit ${results[mode]!.exitCode}, ${results[mode]!.durationMs} ms, ${results[mode]!.ok ? 'ok' : 'FAILED'}`);
	}
}, 20 * 60_000);

afterAll(async () => {
	await stopSimulatedN8n(e2e);
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

	it('the video node sends the keyframe (i2v) and the start video (v2v) from the input binaries', () => {
		run(mode);
		const i2v = sim.log.submits.find((s) => s.prompt === `${mode} mode i2v`);
		expect(i2v?.body).toMatchObject({ mode: 'i2v', keyframes: [PHOTO.toString('base64')] });
		const v2v = sim.log.submits.find((s) => s.prompt === `${mode} mode v2v`);
		expect(v2v?.body).toMatchObject({ mode: 'v2v', start_video: CLIP.toString('base64') });
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
