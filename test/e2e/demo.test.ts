/**
 * `npm run demo` (scripts/demo.ts; the build is done by test:e2e) in a child process:
 *  - as a newcomer runs it: the bundled simulator, the 2-image example (kept short with --only minimal);
 *  - "real API" mode: FLUX_API_KEY / FLUX_BASE_URL / FLUX_API_STYLE pointing at a simulator started
 *    here (BFL style), proving the environment is used and the key is never printed.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fsp, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { EXAMPLES, REPO_ROOT, loadExample, submitPrompts } from '../../scripts/examples';
import { ensureN8nInstalled, runProcess, selectedN8nVersion, type RunResult } from '../../scripts/n8n';
import { readPromptFromPng, startRelaySimulator, type RelaySimulator } from '../../relay-sim';
import { drawableText } from '../../relay-sim/bitmapFont';
import { pictureOf } from '../support/pictureWords';

const log = (line: string) => process.stderr.write(`[e2e demo] ${line}\n`);

async function runDemo(args: string[], env: Record<string, string> = {}): Promise<RunResult> {
	const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
	delete childEnv.NODE_ENV; // jest sets NODE_ENV=test; a user's shell does not
	if (!env.FLUX_API_KEY) {
		delete childEnv.FLUX_API_KEY;
		delete childEnv.FLUX_BASE_URL;
		delete childEnv.FLUX_API_STYLE;
	}
	const result = await runProcess(
		process.execPath,
		[require.resolve('ts-node/dist/bin.js'), '--transpile-only', path.join(REPO_ROOT, 'scripts', 'demo.ts'), ...args],
		{ cwd: REPO_ROOT, env: childEnv, timeoutMs: 8 * 60_000 },
	);
	log(`demo ${args.join(' ')}: exit ${result.exitCode}, ${result.durationMs} ms`);
	if (result.exitCode !== 0) log(`${result.stdout}\n${result.stderr}`);
	return result;
}

const minimal = EXAMPLES.find((e) => e.key === 'minimal')!;
const expectedPrompts = Object.values(submitPrompts(loadExample(minimal)));

let outDir: string;

beforeAll(async () => {
	await ensureN8nInstalled({ log });
	outDir = await fsp.mkdtemp(path.join(tmpdir(), 'flux-e2e-demo-'));
}, 45 * 60 * 1000);

afterAll(async () => {
	if (outDir) await fsp.rm(outDir, { recursive: true, force: true });
});

/**
 * Both images are there, each holds its prompt, and a person opening it sees which prompt it answers: the prompt's
 * words are written on it (read back glyph by glyph) and it has the example's 4:3 shape (the simulator's 1k, scaled down).
 */
function expectImages(folder: string): void {
	const prompts = ['slot-01.png', 'slot-02.png'].map((file) => {
		const full = path.join(folder, file);
		expect(existsSync(full)).toBe(true);
		const png = readFileSync(full);
		const prompt = readPromptFromPng(png)!;
		const picture = pictureOf(png, prompt);
		expect({ width: picture.width, height: picture.height }).toEqual({ width: 592, height: 440 });
		expect(picture.words.replace(/\.\.\.$/, '').length).toBeGreaterThan(20);
		expect(drawableText(prompt).startsWith(picture.words.replace(/\.\.\.$/, ''))).toBe(true);
		return prompt;
	});
	expect(prompts.sort()).toEqual([...expectedPrompts].sort());
	expect(existsSync(path.join(folder, 'report.json'))).toBe(true);
}

it('runs the minimal example against the bundled simulator and prints the report', async () => {
	const out = path.join(outDir, 'sim');
	const result = await runDemo(['--only', 'minimal', '--out', out, '--latency', '300', '--jitter', '100']);
	expect(result.exitCode).toBe(0);
	expect(result.stdout).toContain('relay simulator at http://127.0.0.1:');
	expect(result.stdout).toMatch(/slot\s+status\s+task\s+time\s+file/);
	expect(result.stdout).toMatch(/report: 2 slots: 2 success, 0 failed, 0 skipped_error, 0 cancelled/);
	expect(result.stdout).toMatch(/serial, estimated:/);
	expect(result.stdout).toMatch(/^OK: 2 images/m);
	expect(result.stdout).toContain(`n8n      ${selectedN8nVersion().n8n}, real and headless`);
	expectImages(path.join(out, 'flux-3-image-concurrent'));
});

it('--n8n picks the n8n version of the support matrix, and refuses one outside it', async () => {
	const help = await runDemo(['--help']);
	expect(help.exitCode).toBe(0);
	expect(help.stderr).toMatch(/--n8n VERSION\s+the n8n to run: 2\.0\.3, 2\.41\.1, oldest or newest/);
	const wrong = await runDemo(['--n8n', '9.9.9']);
	expect(wrong.exitCode).toBe(2);
	expect(wrong.stderr).toMatch(/^demo: --n8n 9\.9\.9 is not in the support matrix .*use one of: 2\.0\.3, 2\.41\.1, oldest, newest/m);
});

describe('with FLUX_API_KEY set', () => {
	let api: RelaySimulator;
	const key = `bfl-e2e-${randomBytes(16).toString('hex')}`;

	beforeAll(async () => {
		api = await startRelaySimulator({ apiKey: key, latencyMs: 300 });
	});
	afterAll(async () => {
		await api?.close();
	});

	it('uses that API (here: BFL style) and never prints the key', async () => {
		const out = path.join(outDir, 'api');
		const result = await runDemo(['--out', out], { FLUX_API_KEY: key, FLUX_BASE_URL: api.url, FLUX_API_STYLE: 'bfl' });
		expect(result.exitCode).toBe(0);
		expect(result.stdout + result.stderr).not.toContain(key);
		expect(result.stdout).toContain(`${api.url} (API style bfl`);
		// With a real key only the 2-image example runs by default (the batch is 45 paid jobs).
		expect(result.stdout).toContain('add --batch to run it');
		expect(existsSync(path.join(out, 'flux-3-image-sku-batch'))).toBe(false);
		expect(api.log.submits.map((s) => s.style)).toEqual(['bfl', 'bfl']);
		expect(api.log.unauthorized).toBe(0);
		expectImages(path.join(out, 'flux-3-image-concurrent'));
	});
});
