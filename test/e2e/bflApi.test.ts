/**
 * BFL's API as it ships (issue 32) in a REAL n8n against the strict relay simulator, which answers 422 to any
 * body BFL would refuse: FLUX 3 Image at 2:1 and 1:2 with a pinned Model Version and a reference photo; FLUX.2
 * [pro] at tolerance 5 with prompt upsampling; FLUX 3 Video text to video at tolerance 3, image to video from a
 * keyframe and a 15-second continuation; drafts enhanced from their caches alone (and a re-run that pays nothing);
 * the shipped drafts example; and three inputs refused before anything is sent, each naming field and item.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

import { DRAFTS_EXAMPLE, EXAMPLE_CREDENTIAL_NAME, loadDraftsExample, withOutputFolder } from '../../scripts/examples';
import { ensureN8nInstalled, executeWorkflow, importWorkflows, nodeItems, type ExecuteResult, type N8nHome, type WorkflowJson } from '../../scripts/n8n';
import { readPromptFromMp4, type RelaySimulator } from '../../relay-sim';
import type { SubmitLogEntry } from '../../relay-sim/types';
import { solidPng } from '../../relay-sim/pngCodec';
import { startSimulatedN8n, stopSimulatedN8n, type SimulatedN8n } from './support/simulatedN8n';

const API_KEY = `sim-e2e-${randomBytes(16).toString('hex')}`;
const log = (line: string) => process.stderr.write(`[e2e bfl-api] ${line}\n`);
const PHOTO = solidPng(256, 256, [190, 140, 90]).toString('base64');
const SMALL_PHOTO = solidPng(100, 100, [90, 140, 190]).toString('base64');
const START_VIDEO_URL = 'https://example.com/spot-15s.mp4';
const VERSION = '2026-10-01';
const DRAFT_PROMPTS = ['mug on oak, steam rising', 'lamp at dusk, warm glow', 'bottle on a misty trail'];
const KEEP = [true, false, true];

let e2e: SimulatedN8n | undefined;
let sim: RelaySimulator;
let home: N8nHome | undefined;
const runs: Record<string, { result: ExecuteResult; submits: SubmitLogEntry[]; folder: string }> = {};

function node(name: string, type: string, parameters: Record<string, unknown>, x: number, y = 0, extra: Record<string, unknown> = {}) {
	const flux = type.includes('.flux');
	return { id: name, name, type, typeVersion: type.endsWith('.code') ? 2 : 1, position: [x, y], parameters, ...(flux ? { credentials: { fluxApi: e2e!.credential } } : {}), ...extra };
}

const photoItems = (items: string) =>
	`return ${items}.map((json) => ({ json, binary: { photo: { data: '${PHOTO}', mimeType: 'image/png', fileName: 'photo.png' }, small: { data: '${SMALL_PHOTO}', mimeType: 'image/png', fileName: 'small.png' } } }));`;

const chain = (...names: string[]) => Object.fromEntries(names.slice(0, -1).map((from, i) => [from, { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] }]));

/** Start → Input → six submits (three image, three video) → two collectors. */
function schemaWorkflow(): WorkflowJson {
	const t = (name: string) => home!.nodeType(name);
	const photo = { images: [{ source: 'photo' }] };
	const submits = [
		node('Wide', t('fluxConcurrentSubmit'), { prompt: 'wide mug banner', aspectRatio: '2:1', referenceImages: photo, options: { modelVersion: VERSION } }, 400, 0),
		node('Tall', t('fluxConcurrentSubmit'), { prompt: 'tall mug poster', aspectRatio: '1:2', referenceImages: photo, options: { modelVersion: VERSION } }, 400, 150),
		node('Pro', t('fluxConcurrentSubmit'), { model: 'flux-2-pro', prompt: 'pro mug edit', safetyTolerance: 5, promptUpsampling: true, referenceImages: photo }, 400, 300),
		node('T2V', t('fluxVideoConcurrentSubmit'), { mode: 't2v', prompt: 'mug spins', safetyTolerance: 3, duration: '5' }, 400, 450),
		node('I2V', t('fluxVideoConcurrentSubmit'), { mode: 'i2v', prompt: 'mug from the photo spins', keyframes: { frames: [{ source: 'photo' }] }, duration: '5' }, 400, 600),
		node('V2V', t('fluxVideoConcurrentSubmit'), { mode: 'v2v', prompt: 'the spot goes on', startVideo: START_VIDEO_URL, duration: '15' }, 400, 750),
	];
	const toCollector = (from: string, to: string, index: number) => ({ [from]: { main: [[{ node: to, type: 'main', index }]] } });
	return {
		name: 'BFL schema',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', {}, 0),
			node('Input', 'n8n-nodes-base.code', { jsCode: photoItems('[{}]') }, 200),
			...submits,
			node('Images', t('concurrentCollect'), { numberInputs: 3 }, 600, 150),
			node('Videos', t('concurrentCollectVideos'), { numberInputs: 3 }, 600, 600),
		],
		connections: {
			...chain('Start', 'Input'),
			Input: { main: [submits.map((s) => ({ node: s.name, type: 'main', index: 0 }))] },
			...toCollector('Wide', 'Images', 0),
			...toCollector('Tall', 'Images', 1),
			...toCollector('Pro', 'Images', 2),
			...toCollector('T2V', 'Videos', 0),
			...toCollector('I2V', 'Videos', 1),
			...toCollector('V2V', 'Videos', 2),
		},
	};
}

/** The shipped drafts example with three ideas, two of them kept. */
function draftsWorkflow(folder: string): WorkflowJson {
	const workflow = withOutputFolder(loadDraftsExample(), folder);
	const ideas = workflow.nodes.find((n) => n.name === DRAFTS_EXAMPLE.ideas)!;
	const list = DRAFT_PROMPTS.map((prompt, i) => ({ idea: `idea-${i + 1}`, prompt, keep: KEEP[i] }));
	ideas.parameters = { jsCode: `return ${JSON.stringify(list)}.map((json) => ({ json }));` };
	return { ...workflow, name: 'Three drafts, two enhanced' };
}

/** Three serial nodes whose inputs BFL would refuse, each continuing on its error. */
function refusalsWorkflow(): WorkflowJson {
	const t = (name: string) => home!.nodeType(name);
	const onError = { onError: 'continueRegularOutput' };
	const refusals = [
		node('Small Photo', t('fluxImage'), { prompt: 'mug', referenceImages: { images: [{ source: 'small' }] } }, 400, 0, onError),
		node('Long Continuation', t('fluxVideo'), { mode: 'v2v', prompt: 'go on', startVideo: START_VIDEO_URL, duration: '18' }, 400, 150, onError),
		node('Keyframe Tolerance', t('fluxVideo'), { mode: 'i2v', prompt: 'spin', keyframes: { frames: [{ source: 'photo' }] }, safetyTolerance: 3 }, 400, 300, onError),
	];
	return {
		name: 'Refused before sending',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [node('Start', 'n8n-nodes-base.manualTrigger', {}, 0), node('Input', 'n8n-nodes-base.code', { jsCode: photoItems('[{}]') }, 200), ...refusals],
		connections: { ...chain('Start', 'Input'), Input: { main: [refusals.map((r) => ({ node: r.name, type: 'main', index: 0 }))] } },
	};
}

beforeAll(async () => {
	await ensureN8nInstalled({ log });
	e2e = await startSimulatedN8n({ name: 'bfl-api', apiKey: API_KEY, store: true, sim: { latencyMs: { min: 100, max: 300, seed: 'e2e-bfl-api' } }, credentialName: EXAMPLE_CREDENTIAL_NAME, log });
	({ sim, home } = e2e);
	const folders = { drafts: path.join(e2e.outDir, 'drafts'), example: path.join(e2e.outDir, 'example') };
	for (const folder of Object.values(folders)) mkdirSync(folder, { recursive: true });
	const workflows: Array<[string, WorkflowJson, string]> = [
		['schema', schemaWorkflow(), ''],
		['drafts', draftsWorkflow(folders.drafts), folders.drafts],
		['example', withOutputFolder(loadDraftsExample(), folders.example), folders.example],
		['refusals', refusalsWorkflow(), ''],
	];
	const ids = await importWorkflows(home, workflows.map(([, w]) => w));
	const run = async (key: string, id: string, folder: string) => {
		sim.reset();
		const result = await executeWorkflow(home!, id, { timeoutMs: 5 * 60_000 });
		log(`${key}: exit ${result.exitCode}, ${result.durationMs} ms, ${result.ok ? 'ok' : 'FAILED'}`);
		if (!result.ok) log((result.stdout + result.stderr).split('\n').slice(-40).join('\n'));
		runs[key] = { result, submits: [...sim.log.submits], folder };
	};
	for (const [i, [key, , folder]] of workflows.entries()) await run(key, ids[i], folder);
	await run('draftsAgain', ids[1], folders.drafts);
}, 45 * 60 * 1000);

afterAll(async () => {
	await stopSimulatedN8n(e2e);
});

const accepted = (submits: SubmitLogEntry[]) => submits.filter((s) => s.status === 200);
const bodies = (submits: SubmitLogEntry[]) => submits.map((s) => s.body as Record<string, unknown>);
const bodyWith = (submits: SubmitLogEntry[], prompt: string) => bodies(submits).find((b) => b.prompt === prompt);

describe('every field BFL ships, against the strict simulator', () => {
	it('runs with no refused body', () => {
		const { result, submits } = runs.schema;
		expect(result.ok).toBe(true);
		expect(submits.map((s) => s.status)).toEqual(submits.map(() => 200));
		expect(submits).toHaveLength(6);
		expect(result.stdout + result.stderr).not.toContain(API_KEY);
	});

	it('FLUX 3 Image at 2:1 and 1:2 sends the pinned version and the reference photo', () => {
		const { submits } = runs.schema;
		for (const [prompt, ratio] of [['wide mug banner', '2:1'], ['tall mug poster', '1:2']]) {
			expect(bodyWith(submits, prompt)).toEqual({ prompt, images: [PHOTO], aspect_ratio: ratio, resolution: '1k', grounding: true, safety_tolerance: 2, version: VERSION });
		}
	});

	it('FLUX.2 [pro] sends tolerance 5 and prompt upsampling', () => {
		expect(bodyWith(runs.schema.submits, 'pro mug edit')).toMatchObject({ input_image: PHOTO, safety_tolerance: 5, prompt_upsampling: true });
	});

	it('FLUX 3 Video sends tolerance 3 (text to video), the keyframe (image to video) and a 15-second continuation', () => {
		const { submits } = runs.schema;
		expect(bodyWith(submits, 'mug spins')).toMatchObject({ mode: 't2v', safety_tolerance: 3, duration: 5 });
		expect(bodyWith(submits, 'mug from the photo spins')).toMatchObject({ mode: 'i2v', keyframes: [PHOTO] });
		expect(bodyWith(submits, 'mug from the photo spins')).not.toHaveProperty('safety_tolerance'); // the default 2 is not sent
		expect(bodyWith(submits, 'the spot goes on')).toMatchObject({ mode: 'v2v', start_video: START_VIDEO_URL, duration: 15 });
	});

	it('collects every image and clip in slot order', () => {
		const { result } = runs.schema;
		expect(nodeItems(result, 'Images').map((i) => [i.json.slot, i.json.status])).toEqual([1, 2, 3].map((slot) => [slot, 'success']));
		expect(nodeItems(result, 'Videos').map((i) => [i.json.slot, i.json.status])).toEqual([1, 2, 3].map((slot) => [slot, 'success']));
	});
});

describe('drafts, and Enhance a Draft from the cache alone', () => {
	it('pays three drafts and two enhancements, with no refused body', () => {
		const { result, submits } = runs.drafts;
		expect(result.ok).toBe(true);
		expect(submits.map((s) => s.status)).toEqual(submits.map(() => 200));
		const drafts = bodies(submits).filter((b) => b.draft === true);
		expect(drafts.map((b) => b.prompt).sort()).toEqual([...DRAFT_PROMPTS].sort());
		const enhancements = bodies(submits).filter((b) => b.mode === 'draft_enhance');
		expect(enhancements).toHaveLength(2);
		for (const body of enhancements) expect(Object.keys(body).sort()).toEqual(['draft_cache', 'mode']);
	});

	it('returns each draft with its clip and its draft cache, in slot order', () => {
		const drafts = nodeItems(runs.drafts.result, DRAFTS_EXAMPLE.drafts);
		expect(drafts.map((i) => [i.json.slot, i.json.status, i.json.draft])).toEqual([1, 2, 3].map((slot) => [slot, 'success', true]));
		for (const item of drafts) {
			expect(item.binary?.data?.mimeType).toBe('video/mp4');
			expect(item.binary?.draftCache).toBeDefined();
		}
		for (const [i, prompt] of DRAFT_PROMPTS.entries()) {
			expect(readPromptFromMp4(readFileSync(path.join(runs.drafts.folder, `draft-idea-${i + 1}.mp4`)))).toBe(prompt);
		}
	});

	it('enhances exactly the chosen drafts, in slot order, each its own draft’s prompt', () => {
		const finals = nodeItems(runs.drafts.result, DRAFTS_EXAMPLE.finals);
		const chosen = DRAFT_PROMPTS.filter((_, i) => KEEP[i]);
		expect(finals.map((i) => [i.json.slot, i.json.status])).toEqual(chosen.map((_, i) => [i + 1, 'success']));
		const files = readdirSync(runs.drafts.folder).filter((f) => f.startsWith('final-')).sort();
		expect(files).toEqual(['final-idea-1.mp4', 'final-idea-3.mp4']);
		for (const [i, file] of files.entries()) expect(readPromptFromMp4(readFileSync(path.join(runs.drafts.folder, file)))).toBe(chosen[i]);
	});

	it('a re-run of the whole workflow pays nothing and returns the same clips and caches', () => {
		const again = runs.draftsAgain;
		expect(again.result.ok).toBe(true);
		expect(again.submits).toEqual([]);
		const drafts = nodeItems(again.result, DRAFTS_EXAMPLE.drafts);
		expect(drafts.map((i) => [i.json.slot, i.json.status, i.json.draft])).toEqual([1, 2, 3].map((slot) => [slot, 'success', true]));
		for (const item of drafts) expect(item.binary?.draftCache).toBeDefined();
		expect(nodeItems(again.result, DRAFTS_EXAMPLE.finals).map((i) => i.json.status)).toEqual(['success', 'success']);
	});
});

describe('examples/flux-3-video-drafts.json', () => {
	it('drafts ten ideas and enhances the three marked keep', () => {
		const { result, submits, folder } = runs.example;
		expect(result.ok).toBe(true);
		// Ten clips against BFL's 5 active video tasks: the 429s are the cap (retried, no task made); nothing is refused.
		expect(submits.filter((s) => s.status !== 200 && s.status !== 429)).toEqual([]);
		expect(bodies(accepted(submits)).filter((b) => b.draft === true)).toHaveLength(10);
		expect(bodies(accepted(submits)).filter((b) => b.mode === 'draft_enhance')).toHaveLength(3);
		expect(readdirSync(folder).filter((f) => f.startsWith('draft-'))).toHaveLength(10);
		expect(readdirSync(folder).filter((f) => f.startsWith('final-')).sort()).toEqual(['final-bottle-trail.mp4', 'final-lamp-dusk.mp4', 'final-mug-steam.mp4']);
	});
});

describe('refused before anything is sent, naming the field as the editor shows it and the item', () => {
	const errorOf = (name: string) => String(nodeItems(runs.refusals.result, name)[0]?.json.error ?? '');

	it('sends nothing', () => {
		expect(runs.refusals.result.ok).toBe(true);
		expect(runs.refusals.submits).toEqual([]);
	});

	it('a 100×100 reference photo', () => {
		expect(errorOf('Small Photo')).toMatch(/Reference Images → Image 1/);
		expect(errorOf('Small Photo')).toMatch(/100\s*×\s*100/);
		expect(errorOf('Small Photo')).toMatch(/\[item 0\]/);
	});

	it('a continuation of 18 s', () => {
		expect(errorOf('Long Continuation')).toMatch(/Duration/);
		expect(errorOf('Long Continuation')).toMatch(/15/);
		expect(errorOf('Long Continuation')).toMatch(/\[item 0\]/);
	});

	it('image to video at tolerance 3', () => {
		expect(errorOf('Keyframe Tolerance')).toMatch(/Safety Tolerance/);
		expect(errorOf('Keyframe Tolerance')).toMatch(/\[item 0\]/);
	});
});
