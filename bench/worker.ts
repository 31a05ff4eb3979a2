/**
 * Benchmark worker: a child process of bench/run.ts. It loads n8n-core's WorkflowExecute (through
 * the engine harness) and the package's nodes, then runs the tasks the orchestrator sends over IPC
 * against relay simulators that live in the orchestrator's process (so this process's CPU and
 * memory are the nodes' and the engine's alone).
 *
 * Environment (read once, like the nodes do): COMFLY_IMAGE_CONCURRENCY / COMFLY_IMAGE_PENDING set
 * the pool; BENCH_BINARY_MODE = 'default' (in-memory) | 'filesystem' picks n8n's binary data mode; BENCH_BINARY_DIR is the
 * folder of n8n's binary data in filesystem mode (default: a new temporary folder, removed with the worker);
 * FLUX_BENCH_GC_LOG: the file bench/gcRecorder.js records this process's garbage collections in (recorded when set).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { subscribe } from 'node:diagnostics_channel';
import { monitorEventLoopDelay } from 'node:perf_hooks';

import type { INodeExecutionData } from 'n8n-workflow';

import { makePromptPng } from '../relay-sim/png';
import { GC_LOG_ENV, GC_RECORDER } from './gcLog';
import { splitByThread, threadsOf } from './procStat';
import { loadHarness, makeNodeTypes, TYPES, credentialRef, fluxCredentials, promptItems, type ExecuteTiming, type Harness } from './engine';
import type {
	CpuMs,
	DirectResult,
	DirectTask,
	ExecutionSummary,
	FromWorker,
	JobRecord,
	LoopDelay,
	MemorySummary,
	NodesBatchResult,
	NodesBatchTask,
	SerialResult,
	SerialTask,
	SubmitOverheadRep,
	SubmitOverheadResult,
	SubmitOverheadTask,
	ToWorker,
	WorkerResult,
	WorkerTask,
} from './protocol';
import { flux3Image } from '../src/models';

if (process.env[GC_LOG_ENV]) require(GC_RECORDER); // eslint-disable-line @typescript-eslint/no-require-imports -- plain JS preload, only when asked

const loadStart = performance.now();
const harness = loadHarness();
const timings: ExecuteTiming[] = [];
const nodeTypes = makeNodeTypes(timings);
/* eslint-disable @typescript-eslint/no-require-imports -- loaded after n8n-core, in this order */
const flux = require('../src/flux') as typeof import('../src/flux');
const pool = require('../src/pool') as typeof import('../src/pool');
const store = require('../src/store') as typeof import('../src/store');

/** When each status poll left this process (undici's request:create, epoch ms): the poll rate as the client sends it (goal 12c). */
const pollStarts: number[] = [];
subscribe('undici:request:create', (message) => {
	const { request } = message as { request: { method?: string; path?: string } };
	if (request.method === 'GET' && request.path?.includes('get_result')) pollStarts.push(Date.now());
});
/* eslint-enable @typescript-eslint/no-require-imports */

const binaryMode = process.env.BENCH_BINARY_MODE === 'default' ? 'default' : 'filesystem';
/** Every task is bounded: a task still running after this long fails the benchmark. */
const TASK_TIMEOUT_MS = 300_000;

function send(message: FromWorker): void {
	process.send?.(message);
}

function cpuSince(start: NodeJS.CpuUsage): CpuMs {
	const d = process.cpuUsage(start);
	return { user: d.user / 1000, system: d.system / 1000 };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function gc(): void {
	const collect = (globalThis as { gc?: () => void }).gc;
	if (collect) {
		collect();
		collect();
	}
}

function readVmHwm(): number | undefined {
	try {
		const match = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync('/proc/self/status', 'utf8'));
		return match ? Number(match[1]) * 1024 : undefined;
	} catch {
		return undefined;
	}
}

function resetVmHwm(): void {
	try {
		writeFileSync('/proc/self/clear_refs', '5'); // Linux: reset the peak RSS (VmHWM) to the current RSS
	} catch {
		/* not Linux, or not allowed: VmHWM then includes module loading */
	}
}

function jobRecord(jobId: string, execution?: number): JobRecord {
	let snap;
	try {
		snap = pool.poolFor('image').get<{ taskId?: string }>(jobId);
	} catch {
		// collected and already dropped by the pool's byte bound (large runs): only its id is left
		return { jobId, state: 'collected, dropped', queuedAt: NaN, attempts: 0, execution };
	}
	return {
		jobId,
		taskId: snap.result?.taskId ?? (snap.error as { taskId?: string } | undefined)?.taskId,
		state: snap.state,
		queuedAt: snap.timings.queuedAt,
		startedAt: snap.timings.startedAt,
		finishedAt: snap.timings.finishedAt,
		attempts: snap.attempts,
		execution,
	};
}

const REFERENCE_PROPERTY = 'reference';

/** Every benchmark run is a new upstream job (scenarios repeat prompts): the result store's full miss path. */
const EVERY_RUN_PAYS = { options: { cache: 'refresh' } };

function submitCollectWorkflow(size: number, withReference: boolean, cache: NodesBatchTask['cache'] = 'refresh') {
	const { connect, manualTrigger } = harness;
	const referenceImages = withReference ? { referenceImages: { images: [{ source: REFERENCE_PROPERTY }] } } : {};
	return {
		nodes: [
			manualTrigger('Trigger'),
			{ name: 'Submit', type: TYPES.submit, parameters: { prompt: '={{ $json.prompt }}', ...referenceImages, options: { cache } }, credentials: credentialRef },
			{ name: 'Collect', type: TYPES.collect, parameters: { failureMode: 'placeholder' } },
		],
		connections: connect(['Trigger', 'Submit'], ['Submit', 'Collect']),
		size,
	};
}

/** Trigger items; with a reference image, every item carries the same base64 string (one copy in memory). */
function batchItems(prefix: string, from: number, size: number, reference: string | undefined, suffix?: string): INodeExecutionData[] {
	const items = promptItems(prefix, from, size, suffix);
	if (reference === undefined) return items;
	return items.map((item) => ({ ...item, binary: { [REFERENCE_PROPERTY]: { data: reference, mimeType: 'image/png', fileName: 'reference.png' } } }));
}

/** A valid 256×256 PNG (FLUX 3 Image's smallest reference) of exactly `bytes` bytes, as base64 (built once per task, before the memory baseline). */
function referenceBase64(bytes: number): string {
	return makePromptPng('bench reference image', { width: 256, height: 256, padToBytes: bytes }).toString('base64');
}

/** Memory samples every `sampleMs` after a gc'd baseline with VmHWM reset; `stop()` takes a last sample. */
async function startMemorySampler(sampleMs: number) {
	gc();
	await sleep(200);
	gc();
	const baseline = process.memoryUsage();
	resetVmHwm();
	const state = { samples: 0, peakSample: undefined as NodeJS.MemoryUsage | undefined, maxima: { heapUsed: 0, external: 0, arrayBuffers: 0 } };
	const sample = () => {
		const m = process.memoryUsage();
		state.samples++;
		if (!state.peakSample || m.rss > state.peakSample.rss) state.peakSample = m;
		state.maxima.heapUsed = Math.max(state.maxima.heapUsed, m.heapUsed);
		state.maxima.external = Math.max(state.maxima.external, m.external);
		state.maxima.arrayBuffers = Math.max(state.maxima.arrayBuffers, m.arrayBuffers);
	};
	const timer = setInterval(sample, sampleMs);
	sample();
	return {
		baseline,
		state,
		stop() {
			clearInterval(timer);
			sample();
		},
	};
}

type BatchRun = { run: Awaited<ReturnType<Harness['runWorkflow']>>; wallMs: number };

/** A claim that holds nothing (`claims: 'off'`): the jobs run exactly as with claims, minus acquiring and releasing them. */
const NO_CLAIM = { waited: false, through: { folder: false, redis: false }, held: () => true, release: async () => undefined };

/** The journal's writes and reads that `claims: 'off'` makes do nothing (a miss path with no journal at all). */
const JOURNAL_OFF = {
	submitting: async () => true,
	link: async () => true,
	submitted: async () => true,
	stored: async () => true,
	failed: async () => true,
	read: async () => undefined,
	readChecked: async () => ({ damaged: false }),
};

/** Runs `work` with the process store's claims and journal switched off (`off`: nothing claimed, nothing journaled, nothing synced) or as they are. */
async function withClaims<T>(mode: NodesBatchTask['claims'], work: () => Promise<T>): Promise<T> {
	if (mode !== 'off') return await work();
	const { claims, journal } = store.getStore();
	const acquire = claims.acquire;
	claims.acquire = async () => NO_CLAIM;
	Object.assign(journal, JOURNAL_OFF); // own properties over the class's methods: deleting them restores the journal
	try {
		return await work();
	} finally {
		claims.acquire = acquire;
		for (const name of Object.keys(JOURNAL_OFF)) delete (journal as unknown as Record<string, unknown>)[name];
	}
}

async function runNodesBatch(task: NodesBatchTask): Promise<NodesBatchResult> {
	const credentials = fluxCredentials(task.sim.url, task.sim.apiKey);
	const reference = task.referenceImage ? referenceBase64(task.referenceImage.bytes) : undefined;
	const sampler = task.memory ? await startMemorySampler(task.memory.sampleMs) : undefined;
	const loop = task.loopDelay ? monitorEventLoopDelay({ resolution: 5 }) : undefined;
	loop?.enable();
	const timingStart = timings.length;
	const pollStart = pollStarts.length;
	const threadsStart = threadsOf(process.pid); // read outside the CPU figure (a file per thread)
	const cpuStart = process.cpuUsage();
	const startedAt = Date.now();
	const t0 = performance.now();
	let from = 0;
	const specs = task.executions.map((size) => {
		const spec = { ...submitCollectWorkflow(size, reference !== undefined, task.cache), from };
		from += size;
		return spec;
	});
	const runOne = async (spec: (typeof specs)[number]): Promise<BatchRun> => {
		const started = performance.now();
		const run = await harness.runWorkflow({
			nodes: spec.nodes,
			connections: spec.connections,
			nodeTypes,
			credentials,
			triggerItems: batchItems(task.prefix, spec.from, spec.size, reference, task.suffix),
		});
		return { run, wallMs: performance.now() - started };
	};
	const runs: BatchRun[] = [];
	await withClaims(task.claims, async () => {
		if (task.concurrent) {
			runs.push(...(await Promise.all(specs.map(runOne))));
		} else {
			for (const spec of specs) runs.push(await runOne(spec));
		}
	});
	const wallMs = performance.now() - t0;
	const cpu = cpuSince(cpuStart);
	const byThread = splitByThread(process.pid, threadsStart, threadsOf(process.pid));
	sampler?.stop();
	loop?.disable();
	const loopDelay: LoopDelay | undefined = loop && { maxMs: loop.max / 1e6, p99Ms: loop.percentile(99) / 1e6, meanMs: loop.mean / 1e6 };
	const { executions, jobs } = summarizeRuns(runs, specs, timingStart);
	const memory = sampler ? await memoryAfterRun(sampler, runs, jobs, reference) : undefined;
	return { kind: 'nodesBatch', wallMs, startedAt, cpu, ...byThread, executions, jobs, memory, loopDelay, pollStarts: pollStarts.splice(pollStart) };
}

function summarizeRuns(runs: BatchRun[], specs: ReadonlyArray<{ size: number }>, timingStart: number): { executions: ExecutionSummary[]; jobs: JobRecord[] } {
	const executions: ExecutionSummary[] = [];
	const jobs: JobRecord[] = [];
	runs.forEach(({ run, wallMs: executionMs }, execution) => {
		const summary: ExecutionSummary = {
			status: run.status,
			error: run.error?.message,
			wallMs: executionMs,
			items: specs[execution].size,
		};
		if (run.ran('Submit')) {
			for (const item of run.outputOf('Submit')) {
				const jobId = item.json.jobId;
				if (typeof jobId === 'string') jobs.push(jobRecord(jobId, execution));
			}
		}
		summary.nodes = {};
		for (const name of ['Trigger', 'Submit', 'Collect']) {
			if (!run.ran(name)) continue;
			const { startTime, executionTime } = run.taskData(name);
			summary.nodes[name] = { startTime, executionTime };
		}
		if (run.ran('Collect')) {
			const report = run.outputOf('Collect', 1)[0];
			summary.counts = report?.json.counts as Record<string, number> | undefined;
			summary.cached = typeof report?.json.cached === 'number' ? report.json.cached : undefined;
		}
		executions.push(summary);
	});
	// Executions run in parallel, so the wrapper's timings cannot be matched to runs by name; order suffices here.
	timings.slice(timingStart).forEach((timing, index) => {
		if (executions[index]) executions[index].submitExecuteMs = timing.ms;
	});
	return { executions, jobs };
}

async function memoryAfterRun(
	sampler: Awaited<ReturnType<typeof startMemorySampler>>,
	runs: BatchRun[],
	jobs: readonly JobRecord[],
	reference: string | undefined,
): Promise<MemorySummary> {
	const afterRun = process.memoryUsage();
	const vmHwm = readVmHwm();
	let payloadBytes = 0;
	for (const job of jobs) {
		try {
			payloadBytes += pool.poolFor('image').get<{ buffer?: Buffer }>(job.jobId).result?.buffer?.byteLength ?? 0;
		} catch {
			// dropped by the byte bound after collection
		}
	}
	let base64InItemsBytes = 0;
	for (const { run } of runs) {
		if (!run.ran('Collect')) continue;
		for (const item of run.outputOf('Collect', 0)) {
			const data = item.binary?.data?.data;
			// In-memory mode keeps the base64 text here; filesystem mode keeps a short marker.
			if (typeof data === 'string' && data.length > 64) base64InItemsBytes += data.length;
		}
	}
	const poolRetainedBytes = pool.poolFor('image').stats().retainedBytes;
	runs.length = 0; // drop the run data (items, base64) …
	gc();
	await sleep(100);
	gc();
	return {
		baseline: sampler.baseline,
		peakSample: sampler.state.peakSample!, // sampled at least once: at start and at stop
		samples: sampler.state.samples,
		maxima: sampler.state.maxima,
		vmHwm,
		afterRun,
		afterDropAndGc: process.memoryUsage(),
		payloadBytes,
		poolRetainedBytes,
		base64InItemsBytes,
		referenceBytes: reference === undefined ? 0 : Buffer.byteLength(reference, 'base64'),
		binaryMode,
	};
}

async function runSerial(task: SerialTask): Promise<SerialResult> {
	const { connect, manualTrigger } = harness;
	const cpuStart = process.cpuUsage();
	const t0 = performance.now();
	const run = await harness.runWorkflow({
		nodes: [
			manualTrigger('Trigger'),
			{ name: 'Image', type: TYPES.image, parameters: { prompt: '={{ $json.prompt }}', ...EVERY_RUN_PAYS }, credentials: credentialRef },
		],
		connections: connect(['Trigger', 'Image']),
		nodeTypes,
		credentials: fluxCredentials(task.sim.url, task.sim.apiKey),
		triggerItems: promptItems(task.prefix, 0, task.count, task.suffix),
	});
	const wallMs = performance.now() - t0;
	const out = run.ran('Image') ? run.outputOf('Image') : [];
	return {
		kind: 'serial',
		wallMs,
		cpu: cpuSince(cpuStart),
		status: run.status,
		error: run.error?.message,
		items: out.length,
		taskIds: out.map((item) => String(item.json.taskId ?? '')),
	};
}

async function runSubmitOverhead(task: SubmitOverheadTask): Promise<SubmitOverheadResult> {
	const { connect, manualTrigger } = harness;
	const credentials = fluxCredentials(task.sim.url, task.sim.apiKey);
	const imagePool = pool.poolFor('image');
	const warmup: SubmitOverheadRep[] = [];
	const reps: SubmitOverheadRep[] = [];
	for (let rep = 0; rep < task.warmup + task.reps; rep++) {
		const timingStart = timings.length;
		const cpuStart = process.cpuUsage();
		const t0 = performance.now();
		const run = await harness.runWorkflow({
			nodes: [
				manualTrigger('Trigger'),
				{ name: 'Submit', type: TYPES.submit, parameters: { prompt: '={{ $json.prompt }}', ...EVERY_RUN_PAYS }, credentials: credentialRef },
			],
			connections: connect(['Trigger', 'Submit']),
			nodeTypes,
			credentials,
			triggerItems: promptItems(`${task.prefix} r${rep}`, 0, task.count),
		});
		const workflowMs = performance.now() - t0;
		if (run.status !== 'success') throw new Error(`submit overhead: run ${rep} ended ${run.status}: ${run.error?.message}`);
		const jobIds = run.outputOf('Submit').map((item) => String(item.json.jobId));
		// Drain: wait for every job of this repetition (so the gate never fills and reps are independent).
		const finals = await Promise.all(jobIds.map(async (id) => await imagePool.wait(id)));
		const cpu = cpuSince(cpuStart);
		const timing = timings[timingStart];
		const entry: SubmitOverheadRep = {
			executeMs: timing?.ms ?? NaN,
			n8nExecutionTimeMs: run.taskData('Submit').executionTime,
			workflowMs,
			cpu,
			executeCpuMs: timing?.cpuMs ?? NaN,
			jobs: jobIds.length,
			failed: finals.filter((snap) => snap.state !== 'succeeded').length,
		};
		(rep < task.warmup ? warmup : reps).push(entry);
	}
	return { kind: 'submitOverhead', warmup, reps };
}

async function runDirect(task: DirectTask): Promise<DirectResult> {
	const set = pool.createPoolSet({
		image: { workers: task.concurrency, pending: task.concurrency },
		video: { workers: 1, pending: 0 },
		resultTtlMs: 3_600_000,
		resultMaxBytes: 512 * 1024 * 1024,
	});
	const creds = { apiStyle: 'relay' as const, baseUrl: task.sim.url, apiKey: task.sim.apiKey };
	const polls = new Map<string, number>();
	const downloads = new Map<string, number>();
	const cpuStart = process.cpuUsage();
	const startedAt = Date.now();
	const t0 = performance.now();
	const ids: string[] = [];
	for (let i = 0; i < task.count; i++) {
		const request = {
			model: flux3Image,
			prompt: `${task.prefix} ${i}${task.suffix ?? ''}`,
			values: { resolution: '1k', aspectRatio: 'auto', grounding: true, safetyTolerance: 2 },
			images: [],
		};
		const id = await set.image.submit(
			async (job) => {
				const result = await flux.generateImage(creds, request, { signal: job.signal, testHooks: { poll: task.poll, ...(task.pollCap === false ? { pollLimiter: false as const } : {}) } });
				polls.set(job.jobId, result.attempts.poll);
				downloads.set(job.jobId, result.timings.downloadedAt - result.timings.readyAt);
				return { taskId: result.taskId, bytes: result.buffer.byteLength };
			},
			{ sizeOf: (r) => r.bytes },
		);
		ids.push(id);
	}
	const snaps = await Promise.all(ids.map(async (id) => await set.image.wait<{ taskId: string }>(id)));
	const wallMs = performance.now() - t0;
	return {
		kind: 'direct',
		wallMs,
		startedAt,
		cpu: cpuSince(cpuStart),
		jobs: snaps.map((snap) => ({
			jobId: snap.id,
			taskId: snap.result?.taskId,
			state: snap.state,
			queuedAt: snap.timings.queuedAt,
			startedAt: snap.timings.startedAt,
			finishedAt: snap.timings.finishedAt,
			attempts: snap.attempts,
			polls: polls.get(snap.id),
			downloadMs: downloads.get(snap.id),
		})),
	};
}

async function runTask(task: WorkerTask): Promise<WorkerResult> {
	switch (task.kind) {
		case 'nodesBatch':
			return await runNodesBatch(task);
		case 'serial':
			return await runSerial(task);
		case 'submitOverhead':
			return await runSubmitOverhead(task);
		case 'direct':
			return await runDirect(task);
	}
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
	});
	try {
		return await Promise.race([promise, timeout]);
	} finally {
		clearTimeout(timer);
	}
}

async function shutdown(code: number): Promise<never> {
	try {
		harness.teardownEngine();
		await flux.closeFluxAgent();
	} finally {
		process.exit(code);
	}
}

async function main(): Promise<void> {
	await harness.configureEngine({ binaryDataMode: binaryMode, ...(process.env.BENCH_BINARY_DIR ? { storagePath: process.env.BENCH_BINARY_DIR } : {}) });
	const imagePool = pool.poolFor('image'); // reads COMFLY_IMAGE_* now, once
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const n8nCore = (require('n8n-core/package.json') as { version: string }).version;
	process.on('message', (message: ToWorker) => {
		if (message.type === 'exit') {
			void shutdown(0);
			return;
		}
		const { id, task } = message;
		withTimeout(runTask(task), TASK_TIMEOUT_MS, `task ${task.kind}`).then(
			(result) => send({ type: 'result', id, result }),
			(error: unknown) => send({ type: 'error', id, message: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
		);
	});
	process.on('disconnect', () => void shutdown(0));
	send({
		type: 'ready',
		loadMs: performance.now() - loadStart,
		pool: { workers: imagePool.workers, pending: imagePool.pending },
		binaryMode,
		n8nCore,
	});
}

main().catch((error: unknown) => {
	console.error(error);
	void shutdown(1);
});
