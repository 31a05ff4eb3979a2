/**
 * The Node.js an n8n version runs on: the machine's own (checked against a minimum), or an exact
 * version installed once from the npm registry's `node` package into the cache folder
 * (`<cache>/node-<version>/node_modules/.bin/node`).
 */
import { existsSync, promises as fsp, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';

import { withLock } from './lock';
import { defaultLog, npmCommand, npmEnv, runProcess, tail, type LogFn } from './processes';
import { compareVersions, type NodeRuntimeSpec } from './versions';

export interface NodeRuntime {
	/** Absolute path of the `node` executable. */
	nodeBin: string;
	/** Its version (without the `v`). */
	nodeVersion: string;
	/** A folder holding `node` (and nothing else we rely on): put it first on PATH of every n8n process. */
	binDir: string;
}

/** ~/.cache/n8n-nodes-flux-concurrent (XDG_CACHE_HOME respected): n8n and Node installs, outside the repository. */
export function n8nCacheRoot(): string {
	const base = process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache');
	return path.join(base, 'n8n-nodes-flux-concurrent');
}

export function nodeInstallDir(version: string): string {
	return path.join(n8nCacheRoot(), `node-${version}`);
}

/** PATH with `binDir` first (the n8n processes and the npm that installs n8n see this Node as `node`). */
export function pathWith(binDir: string, pathValue = process.env.PATH ?? ''): string {
	return [binDir, ...pathValue.split(path.delimiter).filter((entry) => entry && entry !== binDir)].join(path.delimiter);
}

/** Make sure the Node.js of `spec` is available (installing it once when it comes from npm). */
export async function ensureNodeRuntime(spec: NodeRuntimeSpec, opts: { log?: LogFn } = {}): Promise<NodeRuntime> {
	const log = opts.log ?? defaultLog;
	if (spec.kind === 'system') {
		if (compareVersions(process.versions.node, spec.min) < 0) {
			throw new Error(`this n8n version needs Node.js >= ${spec.min}; this is ${process.versions.node}`);
		}
		return { nodeBin: process.execPath, nodeVersion: process.versions.node, binDir: path.dirname(process.execPath) };
	}
	const dir = nodeInstallDir(spec.version);
	const runtime = nodeRuntimeIn(dir, spec.version);
	const marker = path.join(dir, '.ready');
	if (existsSync(marker) && existsSync(runtime.nodeBin)) return resolved(runtime);
	await fsp.mkdir(n8nCacheRoot(), { recursive: true });
	return await withLock(`${dir}.lock`, log, async () => {
		if (existsSync(marker) && existsSync(runtime.nodeBin)) return resolved(runtime);
		await installNode(dir, spec.version, log);
		await fsp.writeFile(marker, 'ok\n');
		return resolved(runtime);
	});
}

function nodeRuntimeIn(dir: string, version: string): NodeRuntime {
	const binDir = path.join(dir, 'node_modules', '.bin');
	return { nodeBin: path.join(binDir, 'node'), nodeVersion: version, binDir };
}

/** `.bin/node` is a symlink: hand out the real file (process.execPath of the children is the same then). */
function resolved(runtime: NodeRuntime): NodeRuntime {
	return { ...runtime, nodeBin: realpathSync(runtime.nodeBin) };
}

/** `npm install node@<version>` in `dir` (its preinstall fetches the platform binary), then check `node -v`. */
async function installNode(dir: string, version: string, log: LogFn): Promise<void> {
	const started = Date.now();
	log(`installing Node.js ${version} (npm package node@${version}) into ${dir}`);
	await fsp.rm(dir, { recursive: true, force: true });
	await fsp.mkdir(dir, { recursive: true });
	await fsp.writeFile(
		path.join(dir, 'package.json'),
		JSON.stringify({ name: 'node-cache', private: true, dependencies: { node: version } }) + '\n',
	);
	const install = await runProcess(npmCommand(), ['install', '--no-audit', '--no-fund', '--loglevel=warn'], {
		cwd: dir,
		env: npmEnv(),
		timeoutMs: 10 * 60_000,
	});
	await fsp.writeFile(path.join(dir, 'install.log'), install.stdout + install.stderr);
	if (install.exitCode !== 0) throw new Error(`npm install node@${version} failed in ${dir}:\n${tail(install.stderr || install.stdout)}`);
	const { nodeBin } = nodeRuntimeIn(dir, version);
	const check = existsSync(nodeBin)
		? await runProcess(nodeBin, ['-v'], { cwd: dir, env: npmEnv(), timeoutMs: 30_000 })
		: undefined;
	if (check?.stdout.trim() !== `v${version}`) {
		throw new Error(`npm package node@${version} gave no working Node ${version} in ${dir} (got ${check?.stdout.trim() || 'no executable'})`);
	}
	log(`Node.js ${version} ready in ${Math.round((Date.now() - started) / 1000)}s`);
}
