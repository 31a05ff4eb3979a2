/**
 * The orchestrator's handle on one benchmark worker (bench/worker.ts, a child process): start it with
 * its environment, send it tasks over IPC (each bounded), sample its RSS from outside, close it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import type { FromWorker, ToWorker, WorkerResult, WorkerTask } from './protocol';

export interface Worker {
	label: string;
	child: ChildProcess;
	ready: Extract<FromWorker, { type: 'ready' }>;
	run<R extends WorkerResult>(task: WorkerTask, options?: { sampleRssMs?: number }): Promise<{ result: R; rssPeak?: number }>;
	close(): Promise<void>;
}

function readRss(pid: number): number | undefined {
	try {
		const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
		return match ? Number(match[1]) * 1024 : undefined;
	} catch {
		return undefined;
	}
}

/** One temp result store for the whole benchmark (never the user's ~/.n8n), removed when we exit: its folder. */
let benchStoreDir: string | undefined;
export function benchStore(): string {
	if (benchStoreDir === undefined) {
		const dir = mkdtempSync(path.join(tmpdir(), 'flux-bench-store-'));
		process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
		benchStoreDir = dir;
	}
	return benchStoreDir;
}

/** Our environment without any COMFLY_* setting, plus the benchmark's store folder and the worker's own. */
function childEnvironment(env: Record<string, string>): NodeJS.ProcessEnv {
	const childEnv: NodeJS.ProcessEnv = { ...process.env };
	for (const key of Object.keys(childEnv)) if (key.startsWith('COMFLY_')) delete childEnv[key];
	return Object.assign(childEnv, { COMFLY_STORE_DIR: benchStore() }, env);
}

/** The highest RSS of process `pid` seen every `everyMs` (from /proc, outside the process). */
function sampleRss(pid: number, everyMs: number): { peak(): number | undefined; stop(): void } {
	let rssPeak: number | undefined;
	const timer = setInterval(() => {
		const rss = readRss(pid);
		if (rss !== undefined) rssPeak = Math.max(rssPeak ?? 0, rss);
	}, everyMs);
	return { peak: () => rssPeak, stop: () => clearInterval(timer) };
}

export async function startWorker(label: string, env: Record<string, string>, bounds: { deadline: number; taskDeadlineMs: number }): Promise<Worker> {
	const child = fork(path.join(__dirname, 'worker.ts'), [], {
		execArgv: ['-r', 'ts-node/register/transpile-only', '--expose-gc', ...(process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean)],
		env: childEnvironment(env),
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	let nextId = 1;
	const pending = new Map<number, { resolve: (r: WorkerResult) => void; reject: (e: Error) => void }>();
	let onReady: ((m: Extract<FromWorker, { type: 'ready' }>) => void) | undefined;
	let exited = false;
	child.on('message', (message: FromWorker) => {
		if (message.type === 'ready') onReady?.(message);
		else if (message.type === 'result') pending.get(message.id)?.resolve(message.result);
		else pending.get(message.id)?.reject(new Error(`worker ${label}: ${message.message}`));
		if (message.type !== 'ready') pending.delete(message.id);
	});
	const exitPromise = new Promise<void>((resolve) => {
		child.on('exit', (code) => {
			exited = true;
			for (const { reject } of pending.values()) reject(new Error(`worker ${label} exited (code ${code})`));
			pending.clear();
			resolve();
		});
	});
	const ready = await withDeadline(
		new Promise<Extract<FromWorker, { type: 'ready' }>>((resolve, reject) => {
			onReady = resolve;
			child.once('exit', (code) => reject(new Error(`worker ${label} exited before it was ready (code ${code})`)));
		}),
		120_000,
		`starting worker ${label}`,
	);
	return {
		label,
		child,
		ready,
		async run<R extends WorkerResult>(task: WorkerTask, options: { sampleRssMs?: number } = {}) {
			const id = nextId++;
			const sampler = options.sampleRssMs && child.pid ? sampleRss(child.pid, options.sampleRssMs) : undefined;
			try {
				const result = await withDeadline(
					new Promise<WorkerResult>((resolve, reject) => {
						pending.set(id, { resolve, reject });
						child.send({ type: 'run', id, task } satisfies ToWorker);
					}),
					Math.min(bounds.taskDeadlineMs, Math.max(1000, bounds.deadline - Date.now())),
					`${label}: task ${task.kind}`,
				);
				return { result: result as R, rssPeak: sampler?.peak() };
			} finally {
				sampler?.stop();
			}
		},
		async close() {
			if (exited) return;
			child.send({ type: 'exit' } satisfies ToWorker);
			const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
			await exitPromise;
			clearTimeout(killer);
		},
	};
}

async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	try {
		return await Promise.race([
			promise,
			new Promise<never>((_, reject) => {
				timer = setTimeout(() => reject(new Error(`${what}: no answer within ${Math.round(ms / 1000)} s`)), ms);
			}),
		]);
	} finally {
		clearTimeout(timer);
	}
}

