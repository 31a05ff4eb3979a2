/**
 * Run workflows in a REAL headless n8n (2.0.3) with this package loaded as a community package.
 *
 * Used by the demo (`npm run demo`) and the end-to-end test. Facts this relies on (n8n 2.0.3 source):
 *
 * - Community packages: n8n's `community-packages` backend module (on by default) adds
 *   `<N8N_USER_FOLDER>/.n8n/nodes/node_modules` to the directories LoadNodesAndCredentials scans for
 *   `n8n-nodes-*` / `@scope/n8n-nodes-*` folders, for EVERY command (also `n8n execute`). Each is loaded
 *   with a PackageDirectoryLoader, so node types are `<package name>.<node name>`, exactly as for users
 *   who install the package from the Community Nodes UI. We install the package the way that UI does
 *   (CommunityPackagesService.downloadPackage): `npm pack`, untar into that folder, strip dev/peer/
 *   optional dependencies from its package.json, `npm install --ignore-scripts ...` there. Peer
 *   `n8n-workflow` then resolves to n8n's own copy (n8n puts its module paths in NODE_PATH).
 * - `N8N_RUNNERS_ENABLED` no longer exists in 2.0: the JS task runner is always on (internal mode =
 *   a child process plus a broker on 127.0.0.1:N8N_RUNNERS_BROKER_PORT, default 5679). We give every
 *   run its own free port so parallel runs do not collide.
 * - Files: n8n 2.x only lets nodes read/write below N8N_RESTRICT_FILE_ACCESS_TO (default
 *   `~/.n8n-files`) and never inside the n8n folder (N8N_BLOCK_FILE_ACCESS_TO_N8N_FILES, default on).
 *   Read/Write Files from Disk is not excluded by default (NODES_EXCLUDE defaults to executeCommand and
 *   localFileTrigger) and does not create directories.
 * - n8n loads `.env` from its cwd (dotenv) and refuses to load nodes with NODE_ENV=test (jest sets it),
 *   so children run in the scratch folder with a whitelisted environment.
 *
 * CLI:  ts-node --transpile-only scripts/n8n/realN8n.ts install
 *       ts-node --transpile-only scripts/n8n/realN8n.ts run <workflow.json> [--creds creds.json]
 *             [--package-dir DIR] [--output-dir DIR] [--without-package] [--keep] [--timeout SECONDS]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, promises as fsp, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';

export const N8N_VERSION = '2.0.3';
export const MIN_NODE_VERSION = '20.19.0';
/** npm cannot install n8n 2.0.3 as is: its `xlsx` dependency points at a tarball outside the registry. */
export const N8N_OVERRIDES = { xlsx: '0.18.5' } as const;

export type LogFn = (line: string) => void;

const defaultLog: LogFn = (line) => process.stderr.write(`[n8n] ${line}\n`);

// ---------------------------------------------------------------------------------------------
// Child processes: bounded, killed (whole process group) on timeout and when this process exits.
// ---------------------------------------------------------------------------------------------

const liveChildren = new Set<ChildProcess>();
/** Scratch folders to delete when this process exits (homes created without `keep`). */
const scratchDirs = new Set<string>();
let exitHooksInstalled = false;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
	try {
		process.kill(-child.pid, signal); // detached => the child leads its own process group
	} catch {
		try {
			child.kill(signal);
		} catch {
			/* already gone */
		}
	}
}

function installExitHooks(): void {
	if (exitHooksInstalled) return;
	exitHooksInstalled = true;
	process.on('exit', () => {
		for (const child of liveChildren) killGroup(child, 'SIGKILL');
		for (const dir of scratchDirs) {
			try {
				rmSync(dir, { recursive: true, force: true });
			} catch {
				/* best effort */
			}
		}
	});
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		const handler = (): void => {
			for (const child of liveChildren) killGroup(child, 'SIGKILL');
			// Only intervene when nobody else handles the signal: then behave like the default (exit).
			if (process.listenerCount(signal) <= 1) {
				process.removeListener(signal, handler);
				process.kill(process.pid, signal);
			}
		};
		process.on(signal, handler);
	}
}

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

export interface RunResult {
	exitCode: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
	timedOut: boolean;
	durationMs: number;
}

export interface RunOptions {
	cwd: string;
	env: NodeJS.ProcessEnv;
	timeoutMs: number;
	/** Called with every complete output line (stdout and stderr). */
	onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
	/** Keep at most this many characters of each stream (the tail is kept). Default 64 MiB. */
	maxBuffer?: number;
}

/** Spawn a command in its own process group; kill the group on timeout and on our exit. */
export function runProcess(command: string, args: string[], opts: RunOptions): Promise<RunResult> {
	installExitHooks();
	const started = Date.now();
	const maxBuffer = opts.maxBuffer ?? 64 * 1024 * 1024;
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, {
			cwd: opts.cwd,
			env: opts.env,
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		liveChildren.add(child);
		const out = { stdout: '', stderr: '' };
		const partial = { stdout: '', stderr: '' };
		let timedOut = false;
		const onData = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
			const text = chunk.toString('utf8');
			out[stream] += text;
			if (out[stream].length > maxBuffer) out[stream] = out[stream].slice(-maxBuffer);
			if (opts.onLine) {
				const lines = (partial[stream] + text).split(/\r?\n/);
				partial[stream] = lines.pop() ?? '';
				for (const line of lines) opts.onLine(line, stream);
			}
		};
		child.stdout!.on('data', onData('stdout'));
		child.stderr!.on('data', onData('stderr'));
		let killTimer: NodeJS.Timeout | undefined;
		const timer = setTimeout(() => {
			timedOut = true;
			killGroup(child, 'SIGTERM');
			killTimer = setTimeout(() => killGroup(child, 'SIGKILL'), 5000);
		}, opts.timeoutMs);
		child.on('error', (error) => {
			clearTimeout(timer);
			if (killTimer) clearTimeout(killTimer);
			liveChildren.delete(child);
			reject(error);
		});
		child.on('close', (exitCode, signal) => {
			clearTimeout(timer);
			if (killTimer) clearTimeout(killTimer);
			liveChildren.delete(child);
			// The group may still hold grandchildren (n8n's task runner): make sure they go too.
			if (child.pid !== undefined) {
				try {
					process.kill(-child.pid, 'SIGKILL');
				} catch {
					/* group already empty */
				}
			}
			if (opts.onLine) {
				for (const stream of ['stdout', 'stderr'] as const) {
					if (partial[stream]) opts.onLine(partial[stream], stream);
				}
			}
			resolve({
				exitCode,
				signal,
				stdout: out.stdout,
				stderr: out.stderr,
				timedOut,
				durationMs: Date.now() - started,
			});
		});
	});
}

function tail(text: string, lines = 40): string {
	return text.trimEnd().split('\n').slice(-lines).join('\n');
}

function npmCommand(): string {
	return process.platform === 'win32' ? 'npm.cmd' : 'npm';
}

// ---------------------------------------------------------------------------------------------
// Installing n8n into the cache folder
// ---------------------------------------------------------------------------------------------

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

/** Environment for npm children: ours, minus things that would change npm's or n8n's behaviour. */
function npmEnv(): NodeJS.ProcessEnv {
	const env = { ...process.env };
	delete env.NODE_ENV; // NODE_ENV=production would make npm omit... nothing here, but keep it neutral
	delete env.NODE_OPTIONS;
	return env;
}

function isPidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** A crude cross-process lock (mkdir is atomic); stale locks (dead pid) are taken over. */
async function withLock<T>(lockDir: string, log: LogFn, fn: () => Promise<T>): Promise<T> {
	const deadline = Date.now() + 30 * 60 * 1000;
	let announced = false;
	for (;;) {
		try {
			await fsp.mkdir(lockDir);
			await fsp.writeFile(path.join(lockDir, 'pid'), String(process.pid));
			break;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
			const pid = Number(await fsp.readFile(path.join(lockDir, 'pid'), 'utf8').catch(() => '0'));
			const age = await fsp
				.stat(lockDir)
				.then((s) => Date.now() - s.mtimeMs)
				.catch(() => 0);
			if ((pid > 0 && !isPidAlive(pid)) || (pid === 0 && age > 60_000)) {
				await fsp.rm(lockDir, { recursive: true, force: true });
				continue;
			}
			if (Date.now() > deadline) throw new Error(`Timed out waiting for the lock ${lockDir} (held by pid ${pid})`);
			if (!announced) log(`waiting for another process (pid ${pid}) installing n8n...`);
			announced = true;
			await new Promise((r) => setTimeout(r, 2000));
		}
	}
	try {
		return await fn();
	} finally {
		await fsp.rm(lockDir, { recursive: true, force: true });
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
		const timeoutMs = opts.timeoutMs ?? 30 * 60 * 1000;
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

		const step = async (title: string, args: string[], logFile: string): Promise<void> => {
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
		};

		await step('npm install', ['install', '--no-audit', '--no-fund', '--loglevel=warn'], 'install.log');
		// npm 11 does not run dependency install scripts by default: build sqlite3's native module.
		await step('build sqlite3', ['rebuild', 'sqlite3', '--foreground-scripts'], 'rebuild.log');

		const check = await runProcess(process.execPath, ['-e', "require('sqlite3'); require('n8n/package.json')"], {
			cwd: dir,
			env: npmEnv(),
			timeoutMs: 60_000,
		});
		if (check.exitCode !== 0) throw new Error(`n8n install in ${dir} is not usable:\n${tail(check.stderr)}`);
		await fsp.writeFile(marker, 'ok\n');
		log(`n8n ${N8N_VERSION} ready`);
		return bin;
	});
}

// ---------------------------------------------------------------------------------------------
// A scratch n8n home with this package installed
// ---------------------------------------------------------------------------------------------

export interface N8nHome {
	/** Scratch root (cwd of the n8n processes; files we write go here). */
	dir: string;
	/** N8N_USER_FOLDER; n8n's own folder is `<userFolder>/.n8n`. */
	userFolder: string;
	/** Path of n8n's `bin/n8n` (run with `node`). */
	n8nBin: string;
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
}

interface PackageJson {
	name: string;
	version: string;
	n8n?: { nodes?: string[]; credentials?: string[] };
	dependencies?: Record<string, string>;
	devDependencies?: Record<string, string>;
	peerDependencies?: Record<string, string>;
	optionalDependencies?: Record<string, string>;
	[key: string]: unknown;
}

async function readPackageJson(dir: string): Promise<PackageJson> {
	return JSON.parse(await fsp.readFile(path.join(dir, 'package.json'), 'utf8')) as PackageJson;
}

/** Environment variables passed through from our environment to n8n; everything else is dropped. */
const PASS_THROUGH_ENV = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'TEMP', 'TMP', 'SystemRoot'];

function baseEnv(): Record<string, string> {
	const env: Record<string, string> = {};
	for (const key of PASS_THROUGH_ENV) {
		const value = process.env[key];
		if (value !== undefined) env[key] = value;
	}
	return env;
}

/** A random id like n8n's (16 alphanumerics; `n8n execute` wants ids of at most 16 characters). */
export function newN8nId(): string {
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
	const bytes = randomBytes(16);
	let id = '';
	for (const b of bytes) id += alphabet[b % alphabet.length];
	return id;
}

export async function getFreePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => resolve(port));
		});
	});
}

async function installPackageByPack(packageDir: string, target: string, log: LogFn, scratch: string): Promise<void> {
	const packDir = path.join(scratch, 'pack');
	await fsp.mkdir(packDir, { recursive: true });
	// --ignore-scripts: do not run prepack/prepare (we pack what is built).
	const pack = await runProcess(npmCommand(), ['pack', '--json', '--ignore-scripts', '--pack-destination', packDir], {
		cwd: packageDir,
		env: npmEnv(),
		timeoutMs: 120_000,
	});
	if (pack.exitCode !== 0) throw new Error(`npm pack failed in ${packageDir}:\n${tail(pack.stderr)}`);
	const packed = (JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as Array<{ filename: string }>)[0];
	const tarball = path.join(packDir, path.basename(packed.filename.replace(/^@/, '').replace(/\//, '-')));
	const tarballPath = existsSync(tarball) ? tarball : path.join(packDir, (await fsp.readdir(packDir))[0]);

	await fsp.mkdir(target, { recursive: true });
	const untar = await runProcess('tar', ['-xzf', tarballPath, '-C', target, '--strip-components=1'], {
		cwd: packDir,
		env: npmEnv(),
		timeoutMs: 60_000,
	});
	if (untar.exitCode !== 0) throw new Error(`tar failed:\n${untar.stderr}`);
	await fsp.rm(packDir, { recursive: true, force: true });

	// As n8n's CommunityPackagesService.downloadPackage: drop dev/peer/optional deps, install the rest.
	const pkg = await readPackageJson(target);
	delete pkg.devDependencies;
	delete pkg.peerDependencies;
	delete pkg.optionalDependencies;
	await fsp.writeFile(path.join(target, 'package.json'), JSON.stringify(pkg, null, 2));
	if (pkg.dependencies && Object.keys(pkg.dependencies).length > 0) {
		log(`installing ${pkg.name}'s runtime dependencies (${Object.keys(pkg.dependencies).join(', ')})`);
		const install = await runProcess(
			npmCommand(),
			[
				'install',
				'--audit=false',
				'--fund=false',
				'--bin-links=false',
				'--install-strategy=shallow',
				'--ignore-scripts=true',
				'--package-lock=false',
				'--omit=dev',
				'--prefer-offline',
				'--loglevel=warn',
			],
			{ cwd: target, env: npmEnv(), timeoutMs: 10 * 60_000 },
		);
		if (install.exitCode !== 0) throw new Error(`npm install in ${target} failed:\n${tail(install.stderr)}`);
	}
}

/**
 * Create a scratch n8n home: N8N_USER_FOLDER, environment, and this package installed as a community
 * package (`<userFolder>/.n8n/nodes/node_modules/<name>`), so node types are `<name>.<node>`.
 */
export async function createN8nHome(opts: CreateN8nHomeOptions): Promise<N8nHome> {
	const log = opts.log ?? defaultLog;
	const n8nBin = await ensureN8nInstalled({ log });
	const packageDir = path.resolve(opts.packageDir);
	const pkg = await readPackageJson(packageDir);

	// Only folders we create are ever deleted (cleanup(), on failure, and when this process exits).
	const created = !opts.dir || !existsSync(opts.dir);
	const dir = opts.dir ? path.resolve(opts.dir) : await fsp.mkdtemp(path.join(tmpdir(), 'real-n8n-'));
	await fsp.mkdir(dir, { recursive: true });
	installExitHooks();
	const removable = created && !opts.keep;
	if (removable) scratchDirs.add(dir);
	try {
		return await setUpHome(opts, { dir, n8nBin, packageDir, pkg, log, removable });
	} catch (error) {
		if (removable) {
			await fsp.rm(dir, { recursive: true, force: true });
			scratchDirs.delete(dir);
		}
		throw error;
	}
}

async function setUpHome(
	opts: CreateN8nHomeOptions,
	ctx: { dir: string; n8nBin: string; packageDir: string; pkg: PackageJson; log: LogFn; removable: boolean },
): Promise<N8nHome> {
	const { dir, n8nBin, packageDir, pkg, log, removable } = ctx;
	const userFolder = path.join(dir, 'user');
	const n8nFolder = path.join(userFolder, '.n8n');
	const nodesDir = path.join(n8nFolder, 'nodes');
	await fsp.mkdir(path.join(nodesDir, 'node_modules'), { recursive: true });
	// What n8n's CommunityPackagesService.ensurePackageJson would write.
	await fsp.writeFile(
		path.join(nodesDir, 'package.json'),
		JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2),
	);
	await fsp.writeFile(path.join(dir, 'watchdog.js'), WATCHDOG_SOURCE);

	const install = opts.install ?? 'pack';
	const target = path.join(nodesDir, 'node_modules', pkg.name);
	if (!opts.withoutPackage) {
		const missing = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])].filter(
			(file) => !existsSync(path.join(packageDir, file)),
		);
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
		const deps = JSON.parse(await fsp.readFile(path.join(nodesDir, 'package.json'), 'utf8')) as {
			dependencies: Record<string, string>;
		};
		deps.dependencies[pkg.name] = install === 'link' ? `file:${packageDir}` : pkg.version;
		await fsp.writeFile(path.join(nodesDir, 'package.json'), JSON.stringify(deps, null, 2));
	}

	let outputDir: string | undefined;
	if (opts.outputDir) {
		await fsp.mkdir(opts.outputDir, { recursive: true });
		outputDir = realpathSync(opts.outputDir); // n8n compares real paths
		if (outputDir === n8nFolder || outputDir.startsWith(n8nFolder + path.sep)) {
			throw new Error(`outputDir must not be inside n8n's own folder ${n8nFolder} (n8n blocks that)`);
		}
	}

	const env: Record<string, string> = {
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
		N8N_RESTRICT_FILE_ACCESS_TO: outputDir ?? path.join(dir, 'files'),
		N8N_BLOCK_FILE_ACCESS_TO_N8N_FILES: 'true',
		NO_PROXY: '127.0.0.1,localhost,::1',
		REAL_N8N_PARENT_PID: String(process.pid),
		...(opts.env ?? {}),
	};
	if (!outputDir) await fsp.mkdir(path.join(dir, 'files'), { recursive: true });

	const packageName = pkg.name;
	return {
		dir,
		userFolder,
		n8nBin,
		env,
		packageName,
		nodeTypePrefix: packageName,
		packageInstall: install,
		packageInstallDir: target,
		outputDir,
		nodeType: (name) => `${packageName}.${name}`,
		cleanup: async () => {
			if (!removable) return;
			await fsp.rm(dir, { recursive: true, force: true });
			scratchDirs.delete(dir);
		},
	};
}

// ---------------------------------------------------------------------------------------------
// n8n commands
// ---------------------------------------------------------------------------------------------

export interface N8nCommandOptions {
	env?: Record<string, string>;
	onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
	timeoutMs?: number;
}

/** Run `n8n <args>` for a home. A fresh task-runner broker port for every process. */
export async function runN8n(home: N8nHome, args: string[], opts: N8nCommandOptions = {}): Promise<RunResult> {
	const env: Record<string, string> = {
		N8N_RUNNERS_BROKER_PORT: String(await getFreePort()),
		...home.env,
		...(opts.env ?? {}),
		REAL_N8N_PARENT_PID: String(process.pid),
	};
	return await runProcess(process.execPath, ['--require', path.join(home.dir, 'watchdog.js'), home.n8nBin, ...args], {
		cwd: home.dir,
		env,
		timeoutMs: opts.timeoutMs ?? 120_000,
		onLine: opts.onLine,
	});
}

export interface N8nCredential {
	id?: string;
	name: string;
	type: string;
	/** Plain data: n8n encrypts it on import. */
	data: Record<string, unknown>;
	[key: string]: unknown;
}

async function importFile(home: N8nHome, kind: 'credentials' | 'workflow', content: unknown, opts: N8nCommandOptions): Promise<void> {
	const file = path.join(home.dir, `import-${kind}-${randomUUID()}.json`);
	await fsp.writeFile(file, JSON.stringify(content, null, 2), { mode: 0o600 });
	try {
		const result = await runN8n(home, [`import:${kind}`, `--input=${file}`], opts);
		// n8n 2.0.3 logs a harmless "Could not find workflow" stack trace on every workflow import
		// (it tries to deactivate the not yet existing workflow): judge by the success line instead.
		if (result.exitCode !== 0 || !/Successfully imported \d+/.test(result.stdout + result.stderr)) {
			throw new Error(
				`n8n import:${kind} failed (exit ${result.exitCode}${result.timedOut ? ', timed out' : ''}):\n${tail(result.stdout + result.stderr)}`,
			);
		}
	} finally {
		await fsp.rm(file, { force: true });
	}
}

/** Import credentials (plain `data`, encrypted by n8n). Ids are generated when missing; returns them. */
export async function importCredentials(home: N8nHome, creds: N8nCredential[], opts: N8nCommandOptions = {}): Promise<N8nCredential[]> {
	const withIds = creds.map((c) => ({ ...c, id: c.id ?? newN8nId() }));
	await importFile(home, 'credentials', withIds, opts);
	return withIds;
}

export interface WorkflowJson {
	id?: string;
	versionId?: string;
	name?: string;
	nodes: Array<{ id?: string; name: string; type: string; [key: string]: unknown }>;
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	[key: string]: unknown;
}

function prepareWorkflow(workflow: WorkflowJson): WorkflowJson & { id: string } {
	const wf = {
		name: 'real-n8n workflow',
		active: false,
		settings: { executionOrder: 'v1' },
		...workflow,
		id: workflow.id ?? newN8nId(),
		versionId: workflow.versionId ?? randomUUID(),
		nodes: workflow.nodes.map((node) => ({ ...node, id: node.id ?? randomUUID() })),
	};
	if (wf.id.length > 16) throw new Error(`workflow id ${wf.id} is longer than 16 characters: n8n execute would not run it`);
	return wf;
}

/**
 * Import workflows in ONE n8n process (each n8n command costs ~5-8 s of startup). Sets id, versionId,
 * name, node ids, `active: false` and `settings.executionOrder: 'v1'` when missing. Returns the ids.
 */
export async function importWorkflows(home: N8nHome, workflows: WorkflowJson[], opts: N8nCommandOptions = {}): Promise<string[]> {
	const prepared = workflows.map(prepareWorkflow);
	await importFile(home, 'workflow', prepared, opts);
	return prepared.map((wf) => wf.id);
}

/** Import one workflow (see importWorkflows). Returns its id. */
export async function importWorkflow(home: N8nHome, workflow: WorkflowJson, opts: N8nCommandOptions = {}): Promise<string> {
	const [id] = await importWorkflows(home, [workflow], opts);
	return id;
}

/**
 * Rewrite node types written for N8N_CUSTOM_EXTENSIONS loading (`CUSTOM.<name>`) or bare node names
 * listed in `bareNames` to this home's package-named types (`<package>.<name>`).
 */
export function withPackageNodeTypes(home: Pick<N8nHome, 'nodeType'>, workflow: WorkflowJson, bareNames: string[] = []): WorkflowJson {
	return {
		...workflow,
		nodes: workflow.nodes.map((node) => {
			if (node.type.startsWith('CUSTOM.')) return { ...node, type: home.nodeType(node.type.slice('CUSTOM.'.length)) };
			if (bareNames.includes(node.type)) return { ...node, type: home.nodeType(node.type) };
			return node;
		}),
	};
}

export interface NodeRunError {
	message?: string;
	description?: string;
	name?: string;
	node?: { name?: string; type?: string };
	[key: string]: unknown;
}

export interface ExecuteResult extends RunResult {
	/** The parsed JSON n8n printed (IRun: { data: { resultData: { runData, error?, lastNodeExecuted } }, status, ... }), or null. */
	run: IRunLike | null;
	/** run.data.resultData.runData: node name -> task data per run. */
	runData: Record<string, TaskDataLike[]> | null;
	/** run.data.resultData.error, when the execution failed. */
	error: NodeRunError | null;
	/** true when n8n exited 0 and reported no execution error. */
	ok: boolean;
}

export interface TaskDataLike {
	startTime?: number;
	executionTime?: number;
	executionIndex?: number;
	executionStatus?: string;
	error?: NodeRunError;
	data?: { main?: Array<Array<{ json: Record<string, unknown>; binary?: Record<string, BinaryLike> }> | null> };
	[key: string]: unknown;
}

export interface BinaryLike {
	fileName?: string;
	mimeType?: string;
	fileSize?: string;
	id?: string;
	data?: string;
	[key: string]: unknown;
}

export interface IRunLike {
	status?: string;
	finished?: boolean;
	data: { resultData: { runData: Record<string, TaskDataLike[]>; error?: NodeRunError; lastNodeExecuted?: string } };
	[key: string]: unknown;
}

/**
 * Find n8n's run JSON in its output. n8n prints it with JSON.stringify(data, null, 2) (on success via
 * `--rawOutput`, on failure through its logger at level info): it starts with a line `{` and ends with
 * a line `}` (both unindented; nested lines are indented, newlines inside strings are escaped), with
 * log lines before and after. Returns the last candidate that parses and looks like an IRun.
 */
export function parseRunOutput(output: string): IRunLike | null {
	const lines = output.split(/\r?\n/).map((line) => line.replace(/\x1b\[[0-9;]*m/g, '').trimEnd());
	const ends: number[] = [];
	lines.forEach((line, i) => {
		if (line === '}') ends.push(i);
	});
	for (let start = lines.length - 1; start >= 0; start--) {
		if (lines[start] !== '{') continue;
		const end = ends.find((e) => e > start);
		if (end === undefined) continue;
		try {
			const parsed = JSON.parse(lines.slice(start, end + 1).join('\n')) as unknown;
			if (isRun(parsed)) return parsed;
		} catch {
			/* not JSON: keep looking */
		}
	}
	return null;
}

function isRun(value: unknown): value is IRunLike {
	if (!value || typeof value !== 'object') return false;
	const data = (value as { data?: { resultData?: { runData?: unknown } } }).data;
	return !!data?.resultData && typeof data.resultData.runData === 'object';
}

/** `n8n execute --id=ID --rawOutput`, parsing the run data out of stdout. Never throws for a failed run. */
export async function executeWorkflow(home: N8nHome, id: string, opts: N8nCommandOptions = {}): Promise<ExecuteResult> {
	const result = await runN8n(home, ['execute', `--id=${id}`, '--rawOutput'], { timeoutMs: 300_000, ...opts });
	const run = parseRunOutput(result.stdout) ?? parseRunOutput(result.stdout + '\n' + result.stderr);
	const runData = run?.data.resultData.runData ?? null;
	const error = run?.data.resultData.error ?? null;
	return { ...result, run, runData, error, ok: result.exitCode === 0 && !!run && !error };
}

/** The JSON items a node output (run `runIndex`, output `outputIndex`). */
export function nodeItems(
	result: Pick<ExecuteResult, 'runData'>,
	nodeName: string,
	runIndex = 0,
	outputIndex = 0,
): Array<{ json: Record<string, unknown>; binary?: Record<string, BinaryLike> }> {
	return result.runData?.[nodeName]?.[runIndex]?.data?.main?.[outputIndex] ?? [];
}

/** Node names in the order n8n executed them (by executionIndex, else startTime). */
export function executionOrder(result: Pick<ExecuteResult, 'runData'>): string[] {
	const entries: Array<{ name: string; index: number; start: number }> = [];
	for (const [name, runs] of Object.entries(result.runData ?? {})) {
		runs.forEach((task) =>
			entries.push({ name, index: task.executionIndex ?? Number.MAX_SAFE_INTEGER, start: task.startTime ?? 0 }),
		);
	}
	entries.sort((a, b) => a.index - b.index || a.start - b.start);
	return entries.map((e) => e.name);
}

// ---------------------------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------------------------

function argValue(args: string[], flag: string): string | undefined {
	const i = args.indexOf(flag);
	if (i >= 0) return args[i + 1];
	const eq = args.find((a) => a.startsWith(`${flag}=`));
	return eq?.slice(flag.length + 1);
}

async function main(argv: string[]): Promise<number> {
	const [command, ...rest] = argv;
	if (command === 'install') {
		const bin = await ensureN8nInstalled();
		process.stdout.write(`${bin}\n`);
		return 0;
	}
	if (command === 'run' && rest[0] && !rest[0].startsWith('--')) {
		const workflow = JSON.parse(await fsp.readFile(rest[0], 'utf8')) as WorkflowJson;
		const credsFile = argValue(rest, '--creds');
		const timeout = Number(argValue(rest, '--timeout') ?? 300);
		const home = await createN8nHome({
			packageDir: argValue(rest, '--package-dir') ?? process.cwd(),
			outputDir: argValue(rest, '--output-dir'),
			keep: rest.includes('--keep'),
			withoutPackage: rest.includes('--without-package'),
		});
		try {
			if (credsFile) await importCredentials(home, JSON.parse(await fsp.readFile(credsFile, 'utf8')) as N8nCredential[]);
			const id = await importWorkflow(home, workflow);
			const result = await executeWorkflow(home, id, {
				timeoutMs: timeout * 1000,
				// Echo n8n's log lines, not the run JSON (indented lines and the braces around them).
				onLine: (line) => {
					if (!/^(\s|\{$|\}$)/.test(line) && line !== '') process.stderr.write(`  | ${line}\n`);
				},
			});
			process.stdout.write(JSON.stringify(result.run, null, 2) + '\n');
			process.stderr.write(
				`[n8n] exit ${result.exitCode}, ${result.durationMs} ms, ${result.ok ? 'ok' : `FAILED: ${result.error?.message ?? 'no run data'}`}\n`,
			);
			if (rest.includes('--keep')) process.stderr.write(`[n8n] kept ${home.dir}\n`);
			return result.ok ? 0 : 1;
		} finally {
			await home.cleanup();
		}
	}
	process.stderr.write(
		'usage: realN8n.ts install\n' +
			'       realN8n.ts run <workflow.json> [--creds creds.json] [--package-dir DIR] [--output-dir DIR]\n' +
			'                  [--without-package] [--keep] [--timeout SECONDS]\n',
	);
	return 2;
}

if (require.main === module) {
	main(process.argv.slice(2)).then(
		(code) => process.exit(code),
		(error: unknown) => {
			process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
			process.exit(1);
		},
	);
}
