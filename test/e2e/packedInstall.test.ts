/**
 * The published artefact in a REAL n8n (the version FLUX_E2E_N8N selects): `npm pack` of this
 * repository, installed the way the README tells self-hosters to (`npm install --omit=peer <tarball>`
 * in `~/.n8n/nodes`), then run. n8n runs with the defaults n8n 3.0 changes that 2.x already has
 * settings for: unverified community packages off (N8N_UNVERIFIED_PACKAGES_ENABLED=false, which only
 * gates installing from the UI/registry, not loading what is in ~/.n8n/nodes), binary data on the
 * filesystem (the in-memory mode is gone in 3.0) and the task runner's 60 s timeout.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fsp, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { REPO_ROOT } from '../../scripts/examples';
import {
	createN8nHome,
	executeWorkflow,
	importCredentials,
	importWorkflow,
	nodeItems,
	runProcess,
	type ExecuteResult,
	type N8nHome,
} from '../../scripts/n8n';
import { readPromptFromPng, startRelaySimulator, type RelaySimulator } from '../../relay-sim';

const API_KEY = `sim-e2e-${randomBytes(16).toString('hex')}`;
const log = (line: string) => process.stderr.write(`[e2e packed install] ${line}\n`);
const N8N_3_DEFAULTS = {
	N8N_UNVERIFIED_PACKAGES_ENABLED: 'false',
	N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
	N8N_RUNNERS_TASK_TIMEOUT: '60',
};

let sim: RelaySimulator;
let home: N8nHome | undefined;
let scratch: string;
let installedDir: string;
let result: ExecuteResult;

async function npm(args: string[], cwd: string): Promise<string> {
	const run = await runProcess('npm', args, { cwd, env: { ...home!.env, NODE_ENV: '' }, timeoutMs: 10 * 60_000 });
	if (run.exitCode !== 0) throw new Error(`npm ${args.join(' ')} failed in ${cwd}${run.timedOut ? ' (timed out)' : ''}:\n${run.stderr.slice(-3000)}`);
	return run.stdout;
}

beforeAll(async () => {
	sim = await startRelaySimulator({ apiKey: API_KEY, latencyMs: 50 });
	scratch = await fsp.mkdtemp(path.join(tmpdir(), 'flux-e2e-packed-'));
	home = await createN8nHome({ packageDir: REPO_ROOT, withoutPackage: true, env: N8N_3_DEFAULTS, log });

	// The tarball npm publish would upload (dist is built by `npm run test:e2e`).
	const packed = JSON.parse(await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], REPO_ROOT)) as Array<{ filename: string }>;
	const tarball = path.join(scratch, path.basename(packed[0].filename));
	const nodesDir = path.join(home.userFolder, '.n8n', 'nodes');
	// The README's command; --prefer-offline only spares the registry round trips for what npm has cached.
	await npm(['install', '--omit=peer', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline', tarball], nodesDir);
	installedDir = path.join(nodesDir, 'node_modules', 'n8n-nodes-flux-concurrent');
	log(`installed ${path.basename(tarball)} into ${nodesDir}`);

	const [saved] = await importCredentials(home, [{ name: 'FLUX packed', type: 'fluxApi', data: { apiStyle: 'relay', baseUrl: sim.url, apiKey: API_KEY } }]);
	const id = await importWorkflow(home, {
		name: 'packed install',
		nodes: [
			{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				name: 'FLUX',
				type: 'n8n-nodes-flux-concurrent.fluxImage',
				typeVersion: 1,
				position: [200, 0],
				parameters: { prompt: 'a packed lighthouse' },
				credentials: { fluxApi: { id: String(saved.id), name: saved.name } },
			},
		],
		connections: { Start: { main: [[{ node: 'FLUX', type: 'main', index: 0 }]] } },
	});
	result = await executeWorkflow(home, id, { timeoutMs: 4 * 60_000 });
	log(`run: exit ${result.exitCode}, ${result.durationMs} ms, ${result.ok ? 'ok' : 'FAILED'}`);
}, 20 * 60_000);

afterAll(async () => {
	await home?.cleanup();
	await sim?.close();
	if (scratch) await fsp.rm(scratch, { recursive: true, force: true });
});

it('installs only dist, README, LICENSE and package.json, and not n8n’s own packages', () => {
	expect(readdirSync(installedDir).sort()).toEqual(['LICENSE', 'README.md', 'dist', 'package.json']);
	// --omit=peer: no second n8n-workflow next to n8n's (it would break instanceof checks in n8n).
	expect(existsSync(path.join(path.dirname(installedDir), 'n8n-workflow'))).toBe(false);
	expect(existsSync(path.join(path.dirname(installedDir), 'undici'))).toBe(true); // runtime dependencies are there
});

it('n8n loads the package from ~/.n8n/nodes and runs its node (unverified packages off)', async () => {
	if (!result.ok) throw new Error(`the workflow failed: ${result.error?.message ?? ''}\n${(result.stdout + result.stderr).slice(-3000)}`);
	const [item] = nodeItems(result, 'FLUX');
	expect(item.json).toMatchObject({ status: 'success' });
	expect(item.binary?.data).toMatchObject({ mimeType: 'image/png' });
	expect(sim.log.submits.map((s) => s.prompt)).toEqual(['a packed lighthouse']);
	// The image n8n stored on disk (filesystem mode) is the one the simulator drew for that prompt.
	const storage = await findFiles(home!.userFolder, (file) => file.includes('binary') || file.includes('storage'));
	const images = await Promise.all(storage.map(async (file) => await fsp.readFile(file)));
	expect(images.some((bytes) => readPromptFromPng(bytes) === 'a packed lighthouse')).toBe(true);
	expect(JSON.stringify(result.run) + result.stdout + result.stderr).not.toContain(API_KEY);
});

async function findFiles(dir: string, keep: (file: string) => boolean): Promise<string[]> {
	const found: string[] = [];
	for (const entry of await fsp.readdir(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory() && entry.name !== 'node_modules') found.push(...(await findFiles(full, keep)));
		else if (entry.isFile() && keep(full)) found.push(full);
	}
	return found;
}
