/**
 * examples/flux-3-video-sku-clips.json in a REAL n8n with this package installed as a community package,
 * executed with `n8n execute` against the relay simulator (BFL's 5-active video cap): the three video nodes
 * load, the clips come back in slot order, each MP4 holds its own SKU's prompt and is written to disk.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

import { EXAMPLE_CREDENTIAL_NAME, VIDEO_EXAMPLE, loadVideoExample, videoReport, withOutputFolder } from '../../scripts/examples';
import { ensureN8nInstalled, executeWorkflow, importWorkflows, nodeItems, type ExecuteResult, type N8nHome } from '../../scripts/n8n';
import { readPromptFromMp4, type RelaySimulator } from '../../relay-sim';
import { startSimulatedN8n, stopSimulatedN8n, type SimulatedN8n } from './support/simulatedN8n';

const API_KEY = `sim-e2e-${randomBytes(16).toString('hex')}`;
const log = (line: string) => process.stderr.write(`[e2e video] ${line}\n`);

let e2e: SimulatedN8n | undefined;
let sim: RelaySimulator;
let home: N8nHome | undefined;
let folder: string;
let result: ExecuteResult;

beforeAll(async () => {
	await ensureN8nInstalled({ log });
	const latencyMs = { min: 100, max: 400, seed: 'e2e-video' };
	e2e = await startSimulatedN8n({ name: 'video', apiKey: API_KEY, sim: { latencyMs }, credentialName: EXAMPLE_CREDENTIAL_NAME, log });
	({ sim, home } = e2e);
	folder = path.join(e2e.outDir, 'clips');
	mkdirSync(folder, { recursive: true });
	const [id] = await importWorkflows(home, [withOutputFolder(loadVideoExample(), folder)]);
	result = await executeWorkflow(home, id, { timeoutMs: 5 * 60_000 });
	log(`exit ${result.exitCode}, ${result.durationMs} ms, ${result.ok ? 'ok' : 'FAILED'}`);
	if (!result.ok) log((result.stdout + result.stderr).split('\n').slice(-40).join('\n'));
}, 45 * 60 * 1000);

afterAll(async () => {
	await stopSimulatedN8n(e2e);
});

it('runs the video example in real n8n and writes each SKU’s MP4 in slot order, holding its own prompt', () => {
	expect(result.ok).toBe(true);
	expect(result.stdout + result.stderr).not.toMatch(/Unrecognized node type|Unrecognized credential type/i);
	const skus = nodeItems(result, 'SKUs', 0).map((item) => ({ sku: String(item.json.sku), prompt: String(item.json.prompt) }));
	expect(skus.length).toBeGreaterThanOrEqual(2);

	const clips = nodeItems(result, VIDEO_EXAMPLE.collector, 0);
	expect(clips.map((item) => item.json.slot)).toEqual(skus.map((_, i) => i + 1));
	expect(clips.map((item) => item.json.status)).toEqual(skus.map(() => 'success'));
	const files = readdirSync(folder).filter((f) => f.endsWith('.mp4')).sort();
	expect(files).toEqual(skus.map(({ sku }, i) => `slot-${String(i + 1).padStart(2, '0')}-${sku}.mp4`));
	for (const [i, file] of files.entries()) {
		const mp4 = readFileSync(path.join(folder, file));
		expect(mp4.toString('latin1', 4, 8)).toBe('ftyp');
		expect(readPromptFromMp4(mp4)).toBe(skus[i].prompt);
	}

	expect(videoReport(result)).toMatchObject({ total: skus.length, counts: { success: skus.length, failed: 0 } });
	expect(JSON.parse(readFileSync(path.join(folder, 'report.json'), 'utf8'))).toMatchObject({ total: skus.length });
	// The image-to-video body: the product photo as the opening keyframe (base64), never the seed or the key.
	expect(sim.log.submits.filter((s) => s.status === 200).map((s) => s.model)).toEqual(skus.map(() => 'video'));
	expect(sim.log.submits[0].body).toMatchObject({ mode: 'i2v', duration: 5, aspect_ratio: '1:1' });
	expect(sim.log.peakActiveVideoTasks).toBeLessThanOrEqual(5);
	expect(sim.log.credentialOnDownload).toBe(false);
	expect(result.stdout + result.stderr).not.toContain(API_KEY);
});
