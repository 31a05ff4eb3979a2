/**
 * Child processes for the n8n tooling: each runs in its own process group, bounded by a timeout, and
 * is killed (the whole group: n8n plus its task runner) on timeout and when this process exits.
 * Scratch folders registered here are deleted on exit too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';

export type LogFn = (line: string) => void;

export const defaultLog: LogFn = (line) => process.stderr.write(`[n8n] ${line}\n`);

const liveChildren = new Set<ChildProcess>();
/** Scratch folders to delete when this process exits (homes created without `keep`). */
const scratchDirs = new Set<string>();
let exitHooksInstalled = false;

/** Signals the child's whole process group (n8n and its task runner), or the child alone if that fails. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
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

/** Kill `child`'s process group if this process exits while it runs; forgotten once it has exited. */
export function killOnExit(child: ChildProcess): void {
	installExitHooks();
	liveChildren.add(child);
	child.once('exit', () => liveChildren.delete(child));
}

/** A long-running process (an `n8n start` or `n8n worker`) in its own group, its output kept (the last few MB). */
export interface LongRunningProcess {
	child: ChildProcess;
	output(): string;
	/** SIGTERM to the group, SIGKILL after `graceMs`, then SIGKILL to what remains of the group. */
	stop(graceMs: number): Promise<void>;
	/** SIGKILL to the group. */
	kill(): Promise<void>;
}

/** Spawns `command args` detached (its own process group), killed when this process exits. */
export function spawnLongRunning(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): LongRunningProcess {
	const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
	killOnExit(child);
	let output = '';
	const onData = (chunk: Buffer) => {
		output += chunk.toString('utf8');
		if (output.length > 4 * 1024 * 1024) output = output.slice(-2 * 1024 * 1024);
	};
	child.stdout?.on('data', onData);
	child.stderr?.on('data', onData);
	const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
	return {
		child,
		output: () => output,
		stop: async (graceMs) => {
			killGroup(child, 'SIGTERM');
			const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
			await exited;
			clearTimeout(timer);
			killGroup(child, 'SIGKILL'); // grandchildren (the task runner) if any remain
		},
		kill: async () => {
			killGroup(child, 'SIGKILL');
			await exited;
		},
	};
}

/** Delete `dir` when this process exits (unless forgotten first). */
export function deleteOnExit(dir: string): void {
	installExitHooks();
	scratchDirs.add(dir);
}

export function forgetOnExit(dir: string): void {
	scratchDirs.delete(dir);
}

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
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
		liveChildren.add(child);
		const output = collectOutput(child, opts);
		let timedOut = false;
		let killTimer: NodeJS.Timeout | undefined;
		const timer = setTimeout(() => {
			timedOut = true;
			killGroup(child, 'SIGTERM');
			killTimer = setTimeout(() => killGroup(child, 'SIGKILL'), 5000);
		}, opts.timeoutMs);
		const settle = () => {
			clearTimeout(timer);
			if (killTimer) clearTimeout(killTimer);
			liveChildren.delete(child);
		};
		child.on('error', (error) => {
			settle();
			reject(error);
		});
		child.on('close', (exitCode, signal) => {
			settle();
			// The group may still hold grandchildren (n8n's task runner): make sure they go too.
			if (child.pid !== undefined) {
				try {
					process.kill(-child.pid, 'SIGKILL');
				} catch {
					/* group already empty */
				}
			}
			const { stdout, stderr } = output.finish();
			resolve({ exitCode, signal, stdout, stderr, timedOut, durationMs: Date.now() - started });
		});
	});
}

/** Keeps the tail (`maxBuffer`, default 64 MiB) of each stream and hands complete lines to `onLine`. */
function collectOutput(child: ChildProcess, opts: Pick<RunOptions, 'onLine' | 'maxBuffer'>): { finish(): { stdout: string; stderr: string } } {
	const maxBuffer = opts.maxBuffer ?? 64 * 1024 * 1024;
	const out = { stdout: '', stderr: '' };
	const partial = { stdout: '', stderr: '' };
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
	return {
		finish() {
			for (const stream of ['stdout', 'stderr'] as const) {
				if (opts.onLine && partial[stream]) opts.onLine(partial[stream], stream);
			}
			return out;
		},
	};
}

export function tail(text: string, lines = 40): string {
	return text.trimEnd().split('\n').slice(-lines).join('\n');
}

export function npmCommand(): string {
	return process.platform === 'win32' ? 'npm.cmd' : 'npm';
}

/** Environment for npm children: ours, minus things that would change npm's or n8n's behaviour. */
export function npmEnv(): NodeJS.ProcessEnv {
	const env = { ...process.env };
	delete env.NODE_ENV; // NODE_ENV=production would make npm omit... nothing here, but keep it neutral
	delete env.NODE_OPTIONS;
	return env;
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
