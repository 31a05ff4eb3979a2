/**
 * FLUX.2 in a REAL n8n with this package installed, against the relay simulator: the FLUX.2 example
 * (examples/flux-2-product-photo-edit.json), and one workflow with FLUX.2 [pro] (a binary product photo and a URL
 * as input images, 1024×768, a seed) and FLUX.2 [flex] (steps, guidance, JPEG) into one collector, and the serial
 * node on FLUX.2 [klein 4B]: bodies in BFL's names, images back in slot order, each holding its own prompt.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

import { EXAMPLE_CREDENTIAL_NAME, exampleInfo, loadExample, withOutputFolder } from '../../scripts/examples';
import { ensureN8nInstalled, executeWorkflow, importWorkflows, nodeItems, type ExecuteResult, type N8nHome, type WorkflowJson } from '../../scripts/n8n';
import { readPromptFromJpeg, readPromptFromPng, type RelaySimulator } from '../../relay-sim';
import type { SubmitLogEntry } from '../../relay-sim/types';
import { solidPng } from '../../relay-sim/pngCodec';
import { startSimulatedN8n, stopSimulatedN8n, type SimulatedN8n } from './support/simulatedN8n';

const API_KEY = `sim-e2e-${randomBytes(16).toString('hex')}`;
const log = (line: string) => process.stderr.write(`[e2e flux2] ${line}\n`);
const PHOTO = solidPng(16, 12, [190, 140, 90]).toString('base64');
const STYLE_URL = 'https://example.com/style.png';
const PROMPTS = ['mug on marble', 'tote on linen', 'lamp on oak'];

let e2e: SimulatedN8n | undefined;
let sim: RelaySimulator;
let home: N8nHome | undefined;
const runs: Record<string, { result: ExecuteResult; submits: SubmitLogEntry[]; folder: string }> = {};

function node(name: string, type: string, parameters: Record<string, unknown>, x: number, y = 0, credential = false) {
	return { id: name, name, type, typeVersion: type.endsWith('.code') ? 2 : 1, position: [x, y], parameters, ...(credential ? { credentials: { fluxApi: e2e!.credential } } : {}) };
}

/** Start → Photos (a product photo per item) → FLUX.2 [pro] and [flex] submits → Collect → Write; Photos → serial [klein 4B] → Write. */
function modelsWorkflow(folder: string): WorkflowJson {
	const jsCode = `return ${JSON.stringify(PROMPTS)}.map((prompt) => ({ json: { prompt }, binary: { data: { data: '${PHOTO}', mimeType: 'image/png', fileName: 'photo.png' } } }));`;
	const write = (name: string, x: number, y: number) =>
		node(name, 'n8n-nodes-base.readWriteFile', { operation: 'write', fileName: `=${folder}/${name === 'Write Klein' ? 'klein-{{ $json.taskId }}' : '{{ $binary.data.fileName.replace(/\\.[a-z]+$/, "") }}'}.{{ $binary.data.fileExtension }}`, dataPropertyName: 'data', options: {} }, x, y);
	const images = { images: [{ source: 'data' }, { source: STYLE_URL }] };
	return {
		name: 'FLUX.2 models',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', {}, 0),
			node('Photos', 'n8n-nodes-base.code', { jsCode }, 200),
			node('Pro', home!.nodeType('fluxConcurrentSubmit'), { model: 'flux-2-pro', prompt: '={{ $json.prompt }}', width: 1024, height: 768, seed: 42, referenceImages: images }, 400, 0, true),
			node('Flex', home!.nodeType('fluxConcurrentSubmit'), { model: 'flux-2-flex', prompt: '=flex {{ $json.prompt }}', steps: 28, guidance: 3.5, outputFormat: 'jpeg' }, 400, 200, true),
			node('Collect', home!.nodeType('concurrentCollect'), { numberInputs: 2 }, 600),
			write('Write Slots', 800, 0),
			node('Klein', home!.nodeType('fluxImage'), { model: 'flux-2-klein-4b', prompt: '=klein {{ $json.prompt }}', width: 512, height: 512 }, 400, 400, true),
			write('Write Klein', 600, 400),
		],
		connections: {
			Start: { main: [[{ node: 'Photos', type: 'main', index: 0 }]] },
			Photos: { main: [['Pro', 'Flex', 'Klein'].map((name) => ({ node: name, type: 'main', index: 0 }))] },
			Pro: { main: [[{ node: 'Collect', type: 'main', index: 0 }]] },
			Flex: { main: [[{ node: 'Collect', type: 'main', index: 1 }]] },
			Collect: { main: [[{ node: 'Write Slots', type: 'main', index: 0 }]] },
			Klein: { main: [[{ node: 'Write Klein', type: 'main', index: 0 }]] },
		},
	};
}

beforeAll(async () => {
	await ensureN8nInstalled({ log });
	e2e = await startSimulatedN8n({ name: 'flux2', apiKey: API_KEY, sim: { latencyMs: { min: 100, max: 400, seed: 'e2e-flux2' } }, credentialName: EXAMPLE_CREDENTIAL_NAME, log });
	({ sim, home } = e2e);
	const folders = { models: path.join(e2e.outDir, 'models'), example: path.join(e2e.outDir, 'example') };
	for (const folder of Object.values(folders)) mkdirSync(folder, { recursive: true });
	const workflows = { models: modelsWorkflow(folders.models), example: withOutputFolder(loadExample(exampleInfo('flux2')), folders.example) };
	const ids = await importWorkflows(home, Object.values(workflows));
	for (const [i, key] of (['models', 'example'] as const).entries()) {
		sim.reset();
		const result = await executeWorkflow(home, ids[i], { timeoutMs: 5 * 60_000 });
		log(`${key}: exit ${result.exitCode}, ${result.durationMs} ms, ${result.ok ? 'ok' : 'FAILED'}`);
		if (!result.ok) log((result.stdout + result.stderr).split('\n').slice(-40).join('\n'));
		runs[key] = { result, submits: [...sim.log.submits], folder: folders[key] };
	}
}, 45 * 60 * 1000);

afterAll(async () => {
	await stopSimulatedN8n(e2e);
});

const byEndpoint = (submits: SubmitLogEntry[], endpoint: string) => submits.filter((s) => s.endpoint === endpoint && s.status === 200);

describe('FLUX.2 [pro], [flex] and the serial node on [klein 4B]', () => {
	it('runs in real n8n', () => {
		const { result } = runs.models;
		expect(result.ok).toBe(true);
		expect(result.stdout + result.stderr).not.toMatch(/Unrecognized node type|Unrecognized credential type/i);
		expect(result.stdout + result.stderr).not.toContain(API_KEY);
	});

	it('sends the bodies in BFL’s names: input_image (the binary photo), input_image_2 (the URL), 1024×768, the seed; steps and guidance for flex', () => {
		const { submits } = runs.models;
		const pro = byEndpoint(submits, 'flux-2-pro');
		expect(pro.map((s) => s.prompt).sort()).toEqual([...PROMPTS].sort());
		for (const s of pro) expect(s.body).toEqual({ prompt: s.prompt, input_image: PHOTO, input_image_2: STYLE_URL, width: 1024, height: 768, output_format: 'png', seed: 42, safety_tolerance: 2 });
		const flex = byEndpoint(submits, 'flux-2-flex');
		expect(flex).toHaveLength(3);
		for (const s of flex) expect(s.body).toEqual({ prompt: s.prompt, width: 1024, height: 1024, output_format: 'jpeg', steps: 28, guidance: 3.5, seed: 0, safety_tolerance: 2 });
		const klein = byEndpoint(submits, 'flux-2-klein-4b');
		expect(klein.map((s) => s.body)).toEqual(PROMPTS.map((prompt) => ({ prompt: `klein ${prompt}`, width: 512, height: 512, output_format: 'png', seed: 0, safety_tolerance: 2 })));
		expect(submits.every((s) => s.status === 200)).toBe(true);
	});

	it('returns the images in slot order, PNG for [pro] and JPEG for [flex], each its own prompt', () => {
		const { result, folder } = runs.models;
		const slots = nodeItems(result, 'Collect', 0, 0);
		expect(slots.map((item) => [item.json.slot, item.json.status])).toEqual([1, 2, 3, 4, 5, 6].map((slot) => [slot, 'success']));
		const expected = [...PROMPTS, ...PROMPTS.map((p) => `flex ${p}`)];
		for (const [i, prompt] of expected.entries()) {
			const jpeg = i >= 3;
			const bytes = readFileSync(path.join(folder, `slot-${String(i + 1).padStart(2, '0')}.${jpeg ? 'jpg' : 'png'}`));
			expect(jpeg ? readPromptFromJpeg(bytes) : readPromptFromPng(bytes)).toBe(prompt);
		}
		const klein = nodeItems(result, 'Klein', 0, 0);
		expect(klein.map((item) => item.json.status)).toEqual(['success', 'success', 'success']);
		for (const [i, item] of klein.entries()) {
			expect(readPromptFromPng(readFileSync(path.join(folder, `klein-${String(item.json.taskId)}.png`)))).toBe(`klein ${PROMPTS[i]}`);
		}
	});
});

describe('examples/flux-2-product-photo-edit.json', () => {
	it('edits every photo with FLUX.2 [pro], 30 at a time, and writes each SKU’s JPEG', () => {
		const { result, submits, folder } = runs.example;
		expect(result.ok).toBe(true);
		const skus = nodeItems(result, 'SKUs', 0).map((item) => ({ sku: String(item.json.sku), prompt: String(item.json.prompt) }));
		expect(skus).toHaveLength(45);
		expect(submits.filter((s) => s.status === 200)).toHaveLength(45);
		for (const s of submits) {
			expect(s.endpoint).toBe('flux-2-pro');
			expect(s.body).toMatchObject({ width: 1024, height: 1024, output_format: 'jpeg', input_image: expect.any(String) });
		}
		const files = readdirSync(folder).filter((f) => f.endsWith('.jpg')).sort();
		expect(files).toEqual(skus.map(({ sku }) => `${sku}.jpg`).sort());
		for (const { sku, prompt } of skus) expect(readPromptFromJpeg(readFileSync(path.join(folder, `${sku}.jpg`)))).toBe(prompt);
	});
});
