/**
 * Installing each n8n version of the support matrix (versions.ts) once into the cache folder
 * (~/.cache/n8n-nodes-flux-concurrent/n8n-<version>), with its own Node.js first on PATH (npm runs
 * under it, so engine checks and native builds see the Node that will run n8n), the override npm
 * needs, install scripts off (n8n 2.41's optional `@confluentinc/kafka-javascript` native build fails
 * here), and only sqlite3's native module built.
 */
import { existsSync, promises as fsp } from 'node:fs';
import * as path from 'node:path';

import { withLock } from './lock';
import { ensureNodeRuntime, n8nCacheRoot, pathWith, type NodeRuntime } from './nodeRuntime';
import { defaultLog, npmCommand, npmEnv, runProcess, tail, type LogFn, type RunResult } from './processes';
import { reuseSqliteBuild, shareSqliteBuild } from './sqliteBuild';
import { n8nVersionSpec, OLDEST_N8N, selectedN8nVersion, type N8nVersionSpec } from './versions';

export { n8nCacheRoot } from './nodeRuntime';

/** The matrix entry FLUX_E2E_N8N selects; an unknown value is reported by ensureN8nRuntime, not on import. */
function selectedOrOldest(): N8nVersionSpec {
	try {
		return selectedN8nVersion();
	} catch {
		return OLDEST_N8N;
	}
}

/** The n8n version this process uses: FLUX_E2E_N8N (see versions.ts), else the oldest of the matrix. */
export const N8N_VERSION = selectedOrOldest().n8n;
/** The minimum Node.js of the selected version when it runs on the machine's Node (else its exact Node). */
export const MIN_NODE_VERSION = ((node) => (node.kind === 'system' ? node.min : node.version))(selectedOrOldest().node);
/** npm cannot install n8n 2.x as is: its `xlsx` dependency points at a tarball outside the registry. */
export const N8N_OVERRIDES = { xlsx: '0.18.5' } as const;

export function n8nInstallDir(version = N8N_VERSION): string {
	return path.join(n8nCacheRoot(), `n8n-${version}`);
}

function n8nBinPath(installDir: string): string {
	return path.join(installDir, 'node_modules', 'n8n', 'bin', 'n8n');
}

/** An installed n8n version and the Node.js that runs it. */
export interface N8nRuntime extends NodeRuntime {
	n8nVersion: string;
	/** n8n's `bin/n8n` (run it with `nodeBin`). */
	n8nBin: string;
	/** The environment's PATH with `binDir` first: give it to every n8n process. */
	path: string;
}

export interface EnsureN8nOptions {
	log?: LogFn;
	timeoutMs?: number;
	/** An exact version of the matrix (default: FLUX_E2E_N8N, else the oldest). */
	version?: string;
}

function specFor(version: string | undefined): N8nVersionSpec {
	return version === undefined ? selectedN8nVersion() : n8nVersionSpec(version);
}

async function countEntries(dir: string): Promise<number> {
	try {
		return (await fsp.readdir(dir)).length;
	} catch {
		return 0;
	}
}

/**
 * Make sure n8n (the selected version) is installed in the cache folder and return the path of its
 * `bin/n8n`. Run it with `ensureN8nRuntime().nodeBin` (or through a home's `n8nBin` launcher, which
 * works under any Node).
 */
export async function ensureN8nInstalled(opts: EnsureN8nOptions = {}): Promise<string> {
	return (await ensureN8nRuntime(opts)).n8nBin;
}

/**
 * Make sure the selected n8n version and its Node.js are installed in the cache folder. Reuses an
 * install that has the `.ready` marker; otherwise installs it (about 5-8 minutes and 1.7-2.5 GB: npm
 * install with the xlsx override and scripts off, then `npm rebuild sqlite3`), printing progress.
 */
export async function ensureN8nRuntime(opts: EnsureN8nOptions = {}): Promise<N8nRuntime> {
	const log = opts.log ?? defaultLog;
	const spec = specFor(opts.version);
	const node = await ensureNodeRuntime(spec.node, { log });
	const dir = n8nInstallDir(spec.n8n);
	const marker = path.join(dir, '.ready');
	const runtime: N8nRuntime = { ...node, n8nVersion: spec.n8n, n8nBin: n8nBinPath(dir), path: pathWith(node.binDir) };
	if (existsSync(marker) && existsSync(runtime.n8nBin)) return runtime;

	await fsp.mkdir(n8nCacheRoot(), { recursive: true });
	return await withLock(`${dir}.lock`, log, async () => {
		if (existsSync(marker) && existsSync(runtime.n8nBin)) return runtime; // somebody else finished meanwhile
		const started = Date.now();
		await installInto(dir, runtime, log, opts.timeoutMs ?? 30 * 60 * 1000);
		await fsp.writeFile(marker, 'ok\n');
		log(`n8n ${spec.n8n} (Node ${node.nodeVersion}) ready in ${Math.round((Date.now() - started) / 1000)}s`);
		return runtime;
	});
}

/** npm install n8n (with the overrides, scripts off) under its Node, build sqlite3, check both load. */
async function installInto(dir: string, runtime: N8nRuntime, log: LogFn, timeoutMs: number): Promise<void> {
	log(`installing n8n ${runtime.n8nVersion} on Node ${runtime.nodeVersion} into ${dir} (one time, ~5-8 minutes, ~2 GB)`);
	await fsp.rm(path.join(dir, 'node_modules'), { recursive: true, force: true });
	await fsp.mkdir(dir, { recursive: true });
	await fsp.writeFile(
		path.join(dir, 'package.json'),
		JSON.stringify({
			name: 'n8n-cache',
			private: true,
			dependencies: { n8n: runtime.n8nVersion },
			overrides: N8N_OVERRIDES,
		}) + '\n',
	);
	const env = { ...npmEnv(), PATH: runtime.path };
	const step = { dir, log, timeoutMs, env };
	const install = ['install', '--no-audit', '--no-fund', '--loglevel=warn', '--ignore-scripts'];
	await npmStep(step, 'npm install', install, 'install.log');
	// Scripts are off: the one native module n8n needs is sqlite3 (N-API): reuse another version's build
	// of the same sqlite3, else build it.
	const reused = await reuseSqliteBuild(dir);
	if (reused) log('sqlite3: reusing the build of another n8n version (same sqlite3, N-API)');
	if (!reused || !(await usable(dir, runtime, env)).ok) {
		await npmStep(step, 'build sqlite3', ['rebuild', 'sqlite3', '--foreground-scripts'], 'rebuild.log');
	}
	const check = await usable(dir, runtime, env);
	if (!check.ok) throw new Error(`n8n install in ${dir} is not usable:\n${check.stderr}`);
	await shareSqliteBuild(dir);
}

/** Whether sqlite3 and n8n load under the version's Node. */
async function usable(dir: string, runtime: N8nRuntime, env: NodeJS.ProcessEnv): Promise<{ ok: boolean; stderr: string }> {
	const check = await runProcess(runtime.nodeBin, ['-e', "require('sqlite3'); require('n8n/package.json')"], { cwd: dir, env, timeoutMs: 60_000 });
	return { ok: check.exitCode === 0, stderr: tail(check.stderr) };
}

/** One npm command in `dir`, its output logged (and saved to `logFile`), with a heartbeat every 15 s. */
async function npmStep(
	at: { dir: string; log: LogFn; timeoutMs: number; env: NodeJS.ProcessEnv },
	title: string,
	args: string[],
	logFile: string,
): Promise<void> {
	const { dir, log, timeoutMs, env } = at;
	log(`${title}: npm ${args.join(' ')}`);
	const started = Date.now();
	const heartbeat = setInterval(() => {
		void countEntries(path.join(dir, 'node_modules')).then((n) =>
			log(`  ... ${title} still running (${Math.round((Date.now() - started) / 1000)}s, ${n} entries in node_modules)`),
		);
	}, 15_000);
	let result: RunResult;
	try {
		result = await runProcess(npmCommand(), args, {
			cwd: dir,
			env,
			timeoutMs,
			onLine: (line) => {
				if (line.trim()) log(`  ${line}`);
			},
		});
	} finally {
		clearInterval(heartbeat);
	}
	await fsp.writeFile(path.join(dir, logFile), result.stdout + result.stderr);
	if (result.exitCode !== 0) {
		throw new Error(
			`${title} failed (exit ${result.exitCode}${result.timedOut ? ', timed out' : ''}); see ${path.join(dir, logFile)}\n${tail(result.stderr || result.stdout)}`,
		);
	}
	log(`${title} done in ${Math.round(result.durationMs / 1000)}s`);
}
