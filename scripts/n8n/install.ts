/**
 * Installing n8n (2.0.3) once into the cache folder (~/.cache/n8n-nodes-flux-concurrent), with the
 * override npm needs and sqlite3's native module built.
 */
import { existsSync, promises as fsp } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';

import { withLock } from './lock';
import { defaultLog, npmCommand, npmEnv, runProcess, tail, type LogFn, type RunResult } from './processes';

export const N8N_VERSION = '2.0.3';
export const MIN_NODE_VERSION = '20.19.0';
/** npm cannot install n8n 2.0.3 as is: its `xlsx` dependency points at a tarball outside the registry. */
export const N8N_OVERRIDES = { xlsx: '0.18.5' } as const;

export function n8nCacheRoot(): string {
	const base = process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache');
	return path.join(base, 'n8n-nodes-flux-concurrent');
}

export function n8nInstallDir(version = N8N_VERSION): string {
	return path.join(n8nCacheRoot(), `n8n-${version}`);
}

function n8nBinPath(installDir: string): string {
	return path.join(installDir, 'node_modules', 'n8n', 'bin', 'n8n');
}

function compareVersions(a: string, b: string): number {
	const pa = a.split('.').map((x) => parseInt(x, 10));
	const pb = b.split('.').map((x) => parseInt(x, 10));
	for (let i = 0; i < 3; i++) {
		const d = (pa[i] ?? 0) - (pb[i] ?? 0);
		if (d !== 0) return d;
	}
	return 0;
}

function assertNodeVersion(): void {
	if (compareVersions(process.versions.node, MIN_NODE_VERSION) < 0) {
		throw new Error(`n8n ${N8N_VERSION} needs Node.js >= ${MIN_NODE_VERSION}; this is ${process.versions.node}`);
	}
}


async function countEntries(dir: string): Promise<number> {
	try {
		return (await fsp.readdir(dir)).length;
	} catch {
		return 0;
	}
}

/**
 * Make sure n8n (N8N_VERSION) is installed in the cache folder and return the path of its `bin/n8n`
 * (run it with `node`). Reuses an install that has the `.ready` marker; otherwise installs it (about 5
 * minutes and 1.7 GB: npm install with the xlsx override, then `npm rebuild sqlite3`), printing progress.
 */
export async function ensureN8nInstalled(opts: { log?: LogFn; timeoutMs?: number } = {}): Promise<string> {
	const log = opts.log ?? defaultLog;
	assertNodeVersion();
	const dir = n8nInstallDir();
	const marker = path.join(dir, '.ready');
	const bin = n8nBinPath(dir);
	if (existsSync(marker) && existsSync(bin)) return bin;

	await fsp.mkdir(n8nCacheRoot(), { recursive: true });
	return await withLock(`${dir}.lock`, log, async () => {
		if (existsSync(marker) && existsSync(bin)) return bin; // somebody else finished meanwhile
		await installInto(dir, log, opts.timeoutMs ?? 30 * 60 * 1000);
		await fsp.writeFile(marker, 'ok\n');
		log(`n8n ${N8N_VERSION} ready`);
		return bin;
	});
}

/** npm install n8n (with the overrides), build sqlite3, check both load. */
async function installInto(dir: string, log: LogFn, timeoutMs: number): Promise<void> {
	log(`installing n8n ${N8N_VERSION} into ${dir} (one time, ~5 minutes, ~1.7 GB)`);
	await fsp.mkdir(dir, { recursive: true });
	await fsp.writeFile(
		path.join(dir, 'package.json'),
		JSON.stringify({
			name: 'n8n-cache',
			private: true,
			dependencies: { n8n: N8N_VERSION },
			overrides: N8N_OVERRIDES,
		}) + '\n',
	);
	const step = { dir, log, timeoutMs };
	await npmStep(step, 'npm install', ['install', '--no-audit', '--no-fund', '--loglevel=warn'], 'install.log');
	// npm 11 does not run dependency install scripts by default: build sqlite3's native module.
	await npmStep(step, 'build sqlite3', ['rebuild', 'sqlite3', '--foreground-scripts'], 'rebuild.log');

	const check = await runProcess(process.execPath, ['-e', "require('sqlite3'); require('n8n/package.json')"], {
		cwd: dir,
		env: npmEnv(),
		timeoutMs: 60_000,
	});
	if (check.exitCode !== 0) throw new Error(`n8n install in ${dir} is not usable:\n${tail(check.stderr)}`);
}

/** One npm command in `dir`, its output logged (and saved to `logFile`), with a heartbeat every 15 s. */
async function npmStep(at: { dir: string; log: LogFn; timeoutMs: number }, title: string, args: string[], logFile: string): Promise<void> {
	const { dir, log, timeoutMs } = at;
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
			env: npmEnv(),
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
