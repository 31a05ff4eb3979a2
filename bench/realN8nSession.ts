/**
 * A real n8n for the benchmark: `n8n start` of one supported version (scripts/n8n: its own Node.js, a scratch
 * home with this package installed as the Community Nodes UI installs it, filesystem binary data), one active
 * workflow per relay simulator — Webhook (POST, answers when the last node finishes) → Split Out → FLUX 3 Image
 * Concurrent Submit (Cache `refresh`, as the engine rows) → Concurrent Collect (Placeholder) — fired by POST,
 * and each execution read back through n8n's REST API: every node's startTime and executionTime, the
 * collector's report (per-slot pool timings and task ids), the execution's start and stop.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { parse as parseFlatted } from 'flatted';

import { REPO_ROOT } from '../scripts/examples';
import { createN8nHome, ensureN8nRuntime, type N8nHome } from '../scripts/n8n';
import { N8nRestSession, startN8nServer, type N8nServer } from '../scripts/n8n/n8nServer';
import { storeBoundEnv } from './config';
import { gcBetween, GC_LOG_ENV, GC_RECORDER, type GcTally } from './gcLog';
import { splitByThread, statCpuMs, threadsOf, type ThreadSplit } from './procStat';

/** A simulator a workflow points at (its own credential and webhook path). */
export interface RealN8nTarget {
	key: string;
	url: string;
	apiKey: string;
}

/** One node's run as n8n recorded it (epoch ms, ms). */
export interface NodeRun {
	startTime: number;
	executionTime: number;
}

/** One slot of the collector's report, as the bench needs it (times in epoch ms). */
export interface ReportSlot {
	slot: number;
	status: string;
	jobId?: string;
	taskId?: string;
	queuedAt?: number;
	startedAt?: number;
	finishedAt?: number;
	cached?: boolean;
}

/** One webhook-fired execution, measured from outside (fired / answered) and read back from n8n. */
export interface RealN8nExecution {
	/** Date.now() just before the POST, and when its answer had been read (the caller's view of the makespan). */
	firedAt: number;
	answeredAt: number;
	httpStatus: number;
	executionId: string;
	status: string;
	/** The execution's own start and stop as n8n saved them (epoch ms). */
	startedAt: number;
	stoppedAt: number;
	nodes: Record<string, NodeRun>;
	slots: ReportSlot[];
	/** CPU time (user + system) of the `n8n start` process over the execution, ms; undefined off Linux. */
	n8nCpuMs?: number;
	/** The system (kernel) part of it, ms. */
	n8nSystemCpuMs?: number;
	/** It by thread (the other threads by kind where Node names them: seen on Node 24, n8n 2.41.1), ms. */
	n8nThreads?: ThreadSplit;
}

export interface RealN8nSession {
	version: string;
	nodeVersion: string;
	/** Setting the home up (npm pack + install of this package), and `n8n start` until its REST API answered. */
	setupMs: number;
	startupMs: number;
	/** POSTs the prompts to the workflow of `target` and waits for its answer, then reads the execution back. */
	fire(target: string, prompts: readonly string[]): Promise<RealN8nExecution>;
	/** n8n's main-thread garbage collections that started in [from, to] (epoch ms); undefined unless opened with `recordGc`. */
	gcBetween(from: number, to: number): GcTally | undefined;
	/** What n8n printed so far (stdout and stderr; only the last 2–4 MiB once it printed more). */
	output(): string;
	close(): Promise<void>;
}

/** A batch still unanswered after this long fails the benchmark (the longest shape takes ~20 s). */
const FIRE_TIMEOUT_MS = 300_000;
/** How long a workflow's first POST retries a 404 (its production webhook not registered yet). */
const REGISTRATION_WAIT_MS = 30_000;

export const NODE_NAMES = { webhook: 'Webhook', split: 'Split Out', submit: 'Submit', collect: 'Collect' } as const;

function benchWorkflow(home: N8nHome, name: string, webhookPath: string, credential: { id: string; name: string }) {
	const n = NODE_NAMES;
	return {
		name,
		active: false,
		nodes: [
			{
				id: randomUUID(),
				name: n.webhook,
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { httpMethod: 'POST', path: webhookPath, responseMode: 'lastNode', responseData: 'firstEntryJson', options: {} },
			},
			{ id: randomUUID(), name: n.split, type: 'n8n-nodes-base.splitOut', typeVersion: 1, position: [200, 0], parameters: { fieldToSplitOut: 'body.prompts', include: 'noOtherFields', options: {} } },
			{
				id: randomUUID(),
				name: n.submit,
				type: home.nodeType('fluxConcurrentSubmit'),
				typeVersion: 1,
				position: [400, 0],
				parameters: { prompt: '={{ $json.prompt }}', options: { cache: 'refresh' } },
				credentials: { fluxApi: credential },
			},
			{ id: randomUUID(), name: n.collect, type: home.nodeType('concurrentCollect'), typeVersion: 1, position: [600, 0], parameters: { failureMode: 'placeholder' } },
		],
		connections: {
			[n.webhook]: { main: [[{ node: n.split, type: 'main', index: 0 }]] },
			[n.split]: { main: [[{ node: n.submit, type: 'main', index: 0 }]] },
			[n.submit]: { main: [[{ node: n.collect, type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1', saveDataSuccessExecution: 'all', saveDataErrorExecution: 'all' },
	};
}

function expectOk(answer: { status: number; body: unknown }, what: string): void {
	if (answer.status !== 200) throw new Error(`${what} answered HTTP ${answer.status}: ${JSON.stringify(answer.body).slice(0, 800)}`);
}

const epoch = (iso: unknown): number => (typeof iso === 'string' || typeof iso === 'number' ? new Date(iso).getTime() : NaN);

interface RunDataLike {
	resultData: { runData: Record<string, Array<{ startTime?: number; executionTime?: number; data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> } }>>; error?: { message?: string } };
}

/** How `n8n start` runs: `nodeArgs` go to its Node; `recordGc`: with bench/gcRecorder.js preloaded (its collections, for `gcBetween`); `env`: more of its environment (e.g. a COMFLY_* setting). */
export interface RealN8nOptions {
	nodeArgs?: readonly string[];
	recordGc?: boolean;
	env?: Record<string, string>;
}

/** Starts n8n `version` with a workflow per target (each with its own credential), logged in as the owner. */
export async function openRealN8n(version: string, targets: readonly RealN8nTarget[], log: (line: string) => void, { nodeArgs = [], recordGc = false, env = {} }: RealN8nOptions = {}): Promise<RealN8nSession> {
	const setupStarted = Date.now();
	const runtime = await ensureN8nRuntime({ version, log });
	const storeDir = mkdtempSync(path.join(tmpdir(), `flux-bench-n8n-${version}-store-`));
	// The recorder's file exists from the start: a missing one means not recorded, never "no collection yet".
	const gcDir = recordGc ? mkdtempSync(path.join(tmpdir(), `flux-bench-n8n-${version}-gc-`)) : undefined;
	const gcLog = gcDir === undefined ? undefined : path.join(gcDir, 'gc.jsonl');
	if (gcLog !== undefined) writeFileSync(gcLog, '');
	const removeScratch = () => {
		rmSync(storeDir, { recursive: true, force: true });
		if (gcDir !== undefined) rmSync(gcDir, { recursive: true, force: true });
	};
	let home: N8nHome | undefined;
	let server: N8nServer | undefined;
	try {
		// COMFLY_* left at their defaults (pool 30, poll rate 25): what a user's n8n runs with; the store in a temp folder
		// (BENCH_STORE_MAX_MB: its bound, e.g. to run without the store's prune).
		home = await createN8nHome({ packageDir: REPO_ROOT, n8nVersion: version, env: { COMFLY_STORE_DIR: storeDir, ...storeBoundEnv('BENCH_STORE_MAX_MB'), ...env }, log });
		const setupMs = Date.now() - setupStarted;
		const startStarted = Date.now();
		server = await startN8nServer(home, { log, ...(gcLog !== undefined ? { nodeArgs: [...nodeArgs, '--require', GC_RECORDER], env: { [GC_LOG_ENV]: gcLog } } : { nodeArgs }) });
		const startupMs = Date.now() - startStarted;
		const rest = new N8nRestSession(server.url);
		await rest.setUpOwner();
		const webhooks = new Map<string, { path: string; workflowId: string; firstFire: boolean }>();
		for (const target of targets) {
			const credential = await rest.request<{ id: string; name: string }>('POST', '/rest/credentials', {
				name: `FLUX bench ${target.key}`,
				type: 'fluxApi',
				data: { apiStyle: 'relay', baseUrl: target.url, apiKey: target.apiKey },
			});
			expectOk(credential, `creating the credential for ${target.key}`);
			const webhookPath = `flux-bench-${target.key.replace(/\W+/g, '-')}-${randomBytes(4).toString('hex')}`;
			const created = await rest.request<{ id: string; versionId: string }>('POST', '/rest/workflows', benchWorkflow(home, `bench ${target.key}`, webhookPath, { id: credential.data.id, name: credential.data.name }));
			expectOk(created, `creating the workflow for ${target.key}`);
			expectOk(await rest.request('POST', `/rest/workflows/${created.data.id}/activate`, { versionId: created.data.versionId }), `activating the workflow for ${target.key}`);
			webhooks.set(target.key, { path: webhookPath, workflowId: created.data.id, firstFire: true });
		}
		const url = server.url;
		const pid = server.pid;
		const lastExecution = async (workflowId: string): Promise<string> => {
			const filter = encodeURIComponent(JSON.stringify({ workflowId }));
			const list = await rest.request<{ results?: Array<{ id: string }> }>('GET', `/rest/executions?filter=${filter}&limit=1`);
			expectOk(list, 'listing the executions');
			const id = list.data.results?.map((e) => Number(e.id)).sort((a, b) => b - a)[0];
			if (id === undefined) throw new Error(`n8n ${version} recorded no execution of workflow ${workflowId}`);
			return String(id);
		};
		const readExecution = async (id: string) => {
			const answer = await rest.request<{ status?: string; startedAt?: string; stoppedAt?: string; data?: unknown }>('GET', `/rest/executions/${id}`);
			expectOk(answer, `reading execution ${id}`);
			const data = answer.data.data;
			const run = (typeof data === 'string' ? parseFlatted(data) : data) as RunDataLike;
			return { status: answer.data.status ?? 'unknown', startedAt: epoch(answer.data.startedAt), stoppedAt: epoch(answer.data.stoppedAt), run };
		};
		const fire = async (targetKey: string, prompts: readonly string[]): Promise<RealN8nExecution> => {
			const hook = webhooks.get(targetKey);
			if (!hook) throw new Error(`no workflow for ${targetKey}`);
			const body = JSON.stringify({ prompts: prompts.map((prompt) => ({ prompt })) });
			let cpu0: { user: number; system: number } | undefined;
			let threads0: ReturnType<typeof threadsOf>;
			let firedAt: number;
			let res: Response;
			let answer: string;
			for (const giveUpAt = Date.now() + REGISTRATION_WAIT_MS; ; await new Promise((resolve) => setTimeout(resolve, 200))) {
				cpu0 = statCpuMs(pid);
				threads0 = threadsOf(pid);
				firedAt = Date.now();
				res = await fetch(`${url}/webhook/${hook.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(FIRE_TIMEOUT_MS) });
				answer = await res.text();
				// Newer n8n registers a production webhook a moment after activation; a 404 ran nothing.
				if (res.status !== 404 || !hook.firstFire || Date.now() > giveUpAt) break;
			}
			hook.firstFire = false;
			const answeredAt = Date.now();
			const cpu1 = statCpuMs(pid);
			const threads1 = threadsOf(pid);
			if (res.status !== 200) throw new Error(`n8n ${version}: the webhook answered HTTP ${res.status}: ${answer.slice(0, 500)}`);
			const executionId = await lastExecution(hook.workflowId);
			const { status, startedAt, stoppedAt, run } = await readExecution(executionId);
			if (status !== 'success') throw new Error(`n8n ${version}: execution ${executionId} ended ${status}: ${run.resultData.error?.message ?? ''}`);
			const nodes: Record<string, NodeRun> = {};
			for (const [name, runs] of Object.entries(run.resultData.runData)) {
				const first = runs[0];
				if (first?.startTime !== undefined) nodes[name] = { startTime: first.startTime, executionTime: first.executionTime ?? NaN };
			}
			const report = run.resultData.runData[NODE_NAMES.collect]?.[0]?.data?.main?.[1]?.[0]?.json as { slots?: Array<Record<string, unknown>> } | undefined;
			const slots = (report?.slots ?? []).map((row): ReportSlot => {
				const timings = (row.timings ?? {}) as Record<string, unknown>;
				return {
					slot: Number(row.slot),
					status: String(row.status),
					jobId: typeof row.jobId === 'string' ? row.jobId : undefined,
					taskId: typeof row.taskId === 'string' ? row.taskId : undefined,
					queuedAt: epoch(timings.queuedAt),
					startedAt: epoch(timings.startedAt),
					finishedAt: epoch(timings.finishedAt),
					cached: typeof row.cached === 'boolean' ? row.cached : undefined,
				};
			});
			if (slots.length !== prompts.length) throw new Error(`n8n ${version}: execution ${executionId}: the collector reported ${slots.length} slots for ${prompts.length} prompts`);
			const cpu = cpu0 && cpu1 ? { n8nCpuMs: cpu1.user + cpu1.system - (cpu0.user + cpu0.system), n8nSystemCpuMs: cpu1.system - cpu0.system } : {};
			return { firedAt, answeredAt, httpStatus: res.status, executionId, status, startedAt, stoppedAt, nodes, slots, ...cpu, n8nThreads: splitByThread(pid, threads0, threads1) };
		};
		const started = { home, server };
		return {
			version,
			nodeVersion: runtime.nodeVersion,
			setupMs,
			startupMs,
			fire,
			gcBetween: (from, to) => (gcLog !== undefined ? gcBetween(gcLog, from, to) : undefined),
			output: () => started.server.output(),
			async close() {
				await started.server.stop();
				await started.home.cleanup();
				removeScratch();
			},
		};
	} catch (error) {
		await server?.stop();
		await home?.cleanup();
		removeScratch();
		throw error;
	}
}
