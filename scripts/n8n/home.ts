/**
 * A scratch n8n home (N8N_USER_FOLDER, environment) with this package installed as a community
 * package, for one n8n version of the support matrix (versions.ts) and its Node.js. Facts this relies on
 * (n8n 2.0.3 and 2.41.1 sources):
 *
 * - Community packages: n8n's `community-packages` backend module (on by default) adds
 *   `<N8N_USER_FOLDER>/.n8n/nodes/node_modules` to the directories LoadNodesAndCredentials scans for
 *   `n8n-nodes-*` / `@scope/n8n-nodes-*` folders, for EVERY command (also `n8n execute`). Each is loaded
 *   with a PackageDirectoryLoader, so node types are `<package name>.<node name>`, exactly as for users
 *   who install the package from the Community Nodes UI (see packageInstall.ts). Peer `n8n-workflow`
 *   then resolves to n8n's own copy (n8n puts its module paths in NODE_PATH).
 * - `N8N_RUNNERS_ENABLED` no longer exists in 2.0: the JS task runner is always on (internal mode =
 *   a child process plus a broker on 127.0.0.1:N8N_RUNNERS_BROKER_PORT, default 5679). commands.ts gives
 *   every run its own free port so parallel runs do not collide.
 * - Files: n8n 2.x only lets nodes read/write below N8N_RESTRICT_FILE_ACCESS_TO (default
 *   `~/.n8n-files`) and never inside the n8n folder (N8N_BLOCK_FILE_ACCESS_TO_N8N_FILES, default on).
 *   Read/Write Files from Disk is not excluded by default (NODES_EXCLUDE defaults to executeCommand and
 *   localFileTrigger) and does not create directories.
 * - n8n loads `.env` from its cwd (dotenv) and refuses to load nodes with NODE_ENV=test (jest sets it),
 *   so children run in the scratch folder with a whitelisted environment.
 */
import { createHash } from 'node:crypto';
import { existsSync, promises as fsp, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { ensureN8nRuntime, type N8nRuntime } from './install';
import { installPackageByPack, readPackageJson, type PackageJson } from './packageInstall';
import { defaultLog, deleteOnExit, forgetOnExit, type LogFn } from './processes';

/**
 * Preloaded (`node --require`) into every n8n child: if the process that started it disappears (even by
 * SIGKILL, when no exit hook runs), kill the child's whole process group (n8n plus its task runner).
 */
const WATCHDOG_SOURCE = `'use strict';
const parent = Number(process.env.REAL_N8N_PARENT_PID);
if (parent > 0) {
	const timer = setInterval(() => {
		try { process.kill(parent, 0); } catch {
			try { process.kill(-process.pid, 'SIGKILL'); } catch { process.exit(137); }
		}
	}, 1000);
	timer.unref();
}
`;

/**
 * `<home>/n8n.js`, the home's n8n entry that works under ANY Node: under this version's Node it is n8n
 * itself (`require` of bin/n8n, same process); under another Node (e.g. `process.execPath` of a test
 * on Node 20 while the home runs n8n 2.41 on Node 24) it re-runs itself under the right Node with the
 * same Node options (e.g. `--require watchdog.js`) and arguments, passes signals on and exits as it does.
 */
export function launcherSource(nodeBin: string, n8nBin: string): string {
	return `'use strict';
const NODE = ${JSON.stringify(nodeBin)};
const N8N = ${JSON.stringify(n8nBin)};
const fs = require('fs');
let same = false;
try { same = fs.realpathSync(process.execPath) === fs.realpathSync(NODE); } catch {}
if (same) {
	require(N8N);
} else {
	const { spawn } = require('child_process');
	const child = spawn(NODE, [...process.execArgv, N8N, ...process.argv.slice(2)], { stdio: 'inherit' });
	const forward = (signal) => { try { child.kill(signal); } catch {} };
	for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, forward);
	child.on('error', (error) => { console.error(error.message); process.exit(127); });
	child.on('exit', (code, signal) => {
		if (signal) {
			for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.removeAllListeners(s);
			process.kill(process.pid, signal);
		}
		process.exit(code === null ? 1 : code);
	});
}
`;
}

export interface N8nHome {
	/** Scratch root (cwd of the n8n processes; files we write go here). */
	dir: string;
	/** N8N_USER_FOLDER; n8n's own folder is `<userFolder>/.n8n`. */
	userFolder: string;
	/**
	 * The home's n8n entry (`<dir>/n8n.js`): run it with ANY node (`node --require <dir>/watchdog.js
	 * <n8nBin> start`); it runs n8n under this version's Node (see launcherSource).
	 */
	n8nBin: string;
	/** n8n's own `bin/n8n` in the cache (run it with `nodeBin` only). */
	n8nEntry: string;
	/** The n8n version of this home (FLUX_E2E_N8N, see versions.ts). */
	n8nVersion: string;
	/** The Node.js that runs this home's n8n (also first on `env.PATH`). */
	nodeBin: string;
	/** Base environment of every n8n process of this home. */
	env: Record<string, string>;
	/** Name of the loaded package (from its package.json). */
	packageName: string;
	/** Node type prefix: the package name (community-package loading). */
	nodeTypePrefix: string;
	/** How the package was made available to n8n. */
	packageInstall: 'pack' | 'link';
	/** Folder where the package sits for n8n. */
	packageInstallDir: string;
	/** Real path of the folder workflows may write to (when `outputDir` was given). */
	outputDir?: string;
	/** `${nodeTypePrefix}.${name}` */
	nodeType(name: string): string;
	/** Delete the scratch folder (unless created with keep: true). */
	cleanup(): Promise<void>;
}

export interface CreateN8nHomeOptions {
	/** Repository root of the package, with a built `dist/` (npm run build). */
	packageDir: string;
	/** Folder that workflows may read and write (created if missing). */
	outputDir?: string;
	/** Where to create the scratch folder (default: a new folder under os.tmpdir()). */
	dir?: string;
	/** 'pack' (default): npm pack + npm install like the Community Nodes UI. 'link': symlink packageDir. */
	install?: 'pack' | 'link';
	/** Extra environment for every n8n process of this home. */
	env?: Record<string, string>;
	/** Do not delete the scratch folder (cleanup() and process exit delete it otherwise, if we created it). */
	keep?: boolean;
	log?: LogFn;
	/** Skip installing the package (plain n8n with built-in nodes only). */
	withoutPackage?: boolean;
	/** An exact n8n version of the support matrix (default: FLUX_E2E_N8N, else the oldest). */
	n8nVersion?: string;
}

const PASS_THROUGH_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'TEMP', 'TMP', 'SystemRoot'];

function baseEnv(): Record<string, string> {
	const env: Record<string, string> = {};
	for (const key of PASS_THROUGH_ENV) {
		const value = process.env[key];
		if (value !== undefined) env[key] = value;
	}
	return env;
}

/**
 * Create a scratch n8n home: N8N_USER_FOLDER, environment, and this package installed as a community
 * package (`<userFolder>/.n8n/nodes/node_modules/<name>`), so node types are `<name>.<node>`.
 */
export async function createN8nHome(opts: CreateN8nHomeOptions): Promise<N8nHome> {
	const log = opts.log ?? defaultLog;
	const runtime = await ensureN8nRuntime({ log, version: opts.n8nVersion });
	const packageDir = path.resolve(opts.packageDir);
	const pkg = await readPackageJson(packageDir);

	// Only folders we create are ever deleted (cleanup(), on failure, and when this process exits).
	const created = !opts.dir || !existsSync(opts.dir);
	const dir = opts.dir ? path.resolve(opts.dir) : await fsp.mkdtemp(path.join(tmpdir(), 'real-n8n-'));
	await fsp.mkdir(dir, { recursive: true });
	const removable = created && !opts.keep;
	if (removable) deleteOnExit(dir);
	const remove = async () => {
		if (!removable) return;
		await fsp.rm(dir, { recursive: true, force: true });
		forgetOnExit(dir);
	};
	try {
		return await setUpHome(opts, { dir, runtime, packageDir, pkg, log, cleanup: remove });
	} catch (error) {
		await remove();
		throw error;
	}
}

interface HomeContext {
	dir: string;
	runtime: N8nRuntime;
	packageDir: string;
	pkg: PackageJson;
	log: LogFn;
	cleanup: () => Promise<void>;
}

async function setUpHome(opts: CreateN8nHomeOptions, ctx: HomeContext): Promise<N8nHome> {
	const { dir, runtime, pkg } = ctx;
	const userFolder = path.join(dir, 'user');
	const n8nFolder = path.join(userFolder, '.n8n');
	const nodesDir = path.join(n8nFolder, 'nodes');
	await fsp.mkdir(path.join(nodesDir, 'node_modules'), { recursive: true });
	// What n8n's CommunityPackagesService.ensurePackageJson would write.
	await writeInstalledNodes(nodesDir, {});
	await fsp.writeFile(path.join(dir, 'watchdog.js'), WATCHDOG_SOURCE);
	const n8nBin = path.join(dir, 'n8n.js');
	await fsp.writeFile(n8nBin, launcherSource(runtime.nodeBin, runtime.n8nBin));

	const install = opts.install ?? 'pack';
	const target = path.join(nodesDir, 'node_modules', pkg.name);
	if (!opts.withoutPackage) await addPackage(ctx, install, nodesDir, target);
	const outputDir = opts.outputDir ? await prepareOutputDir(opts.outputDir, n8nFolder) : undefined;
	if (!outputDir) await fsp.mkdir(path.join(dir, 'files'), { recursive: true });
	const env = {
		...n8nEnvironment(dir, userFolder, outputDir ?? path.join(dir, 'files')),
		// Every n8n process (and whatever it starts: the task runner, npm) finds this version's Node first.
		PATH: runtime.path,
		...(opts.env ?? {}),
	};

	const packageName = pkg.name;
	return {
		dir,
		userFolder,
		n8nBin,
		n8nEntry: runtime.n8nBin,
		n8nVersion: runtime.n8nVersion,
		nodeBin: runtime.nodeBin,
		env,
		packageName,
		nodeTypePrefix: packageName,
		packageInstall: install,
		packageInstallDir: target,
		outputDir,
		nodeType: (name) => `${packageName}.${name}`,
		cleanup: ctx.cleanup,
	};
}

async function writeInstalledNodes(nodesDir: string, dependencies: Record<string, string>): Promise<void> {
	await fsp.writeFile(path.join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true, dependencies }, null, 2));
}

/** Install (pack) or link the built package into `<nodesDir>/node_modules` and record it as n8n does. */
async function addPackage(ctx: HomeContext, install: 'pack' | 'link', nodesDir: string, target: string): Promise<void> {
	const { dir, packageDir, pkg, log } = ctx;
	const missing = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])].filter((file) => !existsSync(path.join(packageDir, file)));
	if (missing.length > 0) {
		throw new Error(`${pkg.name} is not built (missing ${missing.join(', ')}): run \`npm run build\` first`);
	}
	if (!/^(@[^/]+\/)?n8n-nodes-/.test(pkg.name)) {
		throw new Error(`n8n only loads community packages named n8n-nodes-* or @scope/n8n-nodes-*; got ${pkg.name}`);
	}
	await fsp.mkdir(path.dirname(target), { recursive: true });
	if (install === 'link') {
		await fsp.symlink(packageDir, target, 'dir');
	} else {
		const started = Date.now();
		await installPackageByPack(packageDir, target, log, dir);
		log(`installed ${pkg.name}@${pkg.version} into ${target} (${Date.now() - started} ms)`);
	}
	await writeInstalledNodes(nodesDir, { [pkg.name]: install === 'link' ? `file:${packageDir}` : pkg.version });
}

/** The folder workflows may write to, as a real path (n8n compares real paths), outside n8n's own folder. */
async function prepareOutputDir(outputDir: string, n8nFolder: string): Promise<string> {
	await fsp.mkdir(outputDir, { recursive: true });
	const real = realpathSync(outputDir);
	if (real === n8nFolder || real.startsWith(n8nFolder + path.sep)) {
		throw new Error(`outputDir must not be inside n8n's own folder ${n8nFolder} (n8n blocks that)`);
	}
	return real;
}

/** The environment of every n8n process of a home (before the caller's own additions). */
function n8nEnvironment(dir: string, userFolder: string, filesDir: string): Record<string, string> {
	return {
		...baseEnv(),
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: createHash('sha256').update(dir).digest('hex').slice(0, 32),
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		// N8N_RUNNERS_ENABLED is gone in 2.0 (runners always on); the broker port is set per process.
		N8N_RUNNERS_MODE: 'internal',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_LOG_OUTPUT: 'console',
		// Keep 'info' (or more): on a failed run `n8n execute` prints the run JSON through its logger at
		// level info only.
		N8N_LOG_LEVEL: 'info',
		DB_TYPE: 'sqlite',
		EXECUTIONS_MODE: 'regular',
		N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
		// Files: allow exactly the output folder (n8n's default is ~/.n8n-files). n8n's own folder stays
		// blocked (N8N_BLOCK_FILE_ACCESS_TO_N8N_FILES defaults to true).
		N8N_RESTRICT_FILE_ACCESS_TO: filesDir,
		N8N_BLOCK_FILE_ACCESS_TO_N8N_FILES: 'true',
		NO_PROXY: '127.0.0.1,localhost,::1',
		REAL_N8N_PARENT_PID: String(process.pid),
	};
}
