/**
 * The real-n8n scenario: the 30-job shapes of scenario 12 (1.5–3.5 s with 1 and 4 MiB images, 12–20 s with 1 MiB) through a
 * real `n8n start` of each asked version (a webhook-fired workflow, bench/realN8nSession.ts), side by side with
 * n8n's engine in process (a fresh bench worker) on the same simulators with the same prompts, so the same seeded
 * latencies. Per latency range every driver first runs one cold batch (a fresh process has learned no ready times),
 * then the measured batches, the drivers taking turns. Each batch is cut into its critical path
 * (bench/makespanBreakdown.ts) from what n8n, the collector's report and the simulator recorded.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { buildPackage } from '../buildPackage';
import { checkBatch } from '../jobs';
import { fixed, log, ms, s } from '../format';
import { gcBetween, GC_LOG_ENV, type GcTally } from '../gcLog';
import type { ThreadSplit } from '../procStat';
import { criticalPath, excessMs, EXCESS_PARTS, type BatchTimeline, type CriticalPath } from '../makespanBreakdown';
import type { NodesBatchResult } from '../protocol';
import { openRealN8n, type RealN8nExecution, type RealN8nSession } from '../realN8nSession';
import type { Bench } from '../session';
import { sizeSuffix, startSizedSim, type SizedSim, type SizeTag } from '../sizedSim';
import { median } from '../stats';
import type { Worker } from '../workerProcess';

export type RangeName = 'short' | 'long';

/** The shapes and their goals: makespan ÷ slowest job, and polls per job for the long one. */
export const REAL_N8N_SHAPES = [
	{ id: 'real-a', range: 'short', size: '1m', target: 1.05 },
	{ id: 'real-b', range: 'short', size: '4m', target: 1.11 },
	{ id: 'real-c', range: 'long', size: '1m', target: 1.02, pollsTarget: 4 },
] as const satisfies ReadonlyArray<{ id: string; range: RangeName; size: SizeTag; target: number; pollsTarget?: number }>;
export type RealN8nShape = (typeof REAL_N8N_SHAPES)[number];

export const ENGINE_DRIVER = 'engine (in process)';
export const n8nDriver = (version: string) => `n8n ${version}`;

/** One batch as measured: its critical path, and the CPU its driver's process spent on it (by thread: ThreadSplit, to the 10 ms of a tick). */
export interface MeasuredBatch extends ThreadSplit {
	path: CriticalPath;
	/** The n8n start process's CPU (user + system) or the engine worker's, ms. */
	cpuMs?: number;
	/** Its system (kernel) part, ms. */
	systemCpuMs?: number;
	/** The main thread's garbage collections during the batch (bench/gcRecorder.js). */
	gc?: GcTally;
	/** The execution id (real n8n). */
	executionId?: string;
}

export interface DriverRuns {
	driver: string;
	runs: MeasuredBatch[];
	/** Medians over the runs: the ratio, polls per job, and each part of the path. */
	median: CriticalPath;
	medianCpuMs: number;
	/** The median of the batches' system (kernel) CPU, ms, taken apart from the total's (undefined in results from before it was read). */
	medianSystemCpuMs?: number;
	/** The median of the batches' main-thread CPU, ms (undefined in results from before it was read). */
	medianMainThreadCpuMs?: number;
	/** The median of the batches' GC pauses on the main thread, ms (undefined in results from before they were read). */
	medianGcPauseMs?: number;
}

export interface ShapeResult {
	shape: RealN8nShape;
	drivers: DriverRuns[];
}

export interface ServerInfo {
	version: string;
	nodeVersion?: string;
	setupMs?: number;
	startupMs?: number;
	error?: string;
}

export interface RealN8nScenario {
	ranges: Record<RangeName, { min: number; max: number }>;
	runs: number;
	versions: string[];
	servers: ServerInfo[];
	/** The first batch of each range per driver: a fresh process, nothing learned yet. */
	cold: Array<{ range: RangeName; driver: string; batch: MeasuredBatch }>;
	shapes: ShapeResult[];
	/** `npm run build` before the package was packed into the n8n homes. */
	buildMs: number;
	durationMs: number;
	loadAverage: { atStart: number[]; atEnd: number[] };
	errors: string[];
}

export const BATCH = 30;
const prompts = (prefix: string, size: SizeTag) => Array.from({ length: BATCH }, (_, i) => `${prefix} ${i}${sizeSuffix(size)}`);

/** The timeline of an execution of the real n8n. */
export function n8nTimeline(execution: RealN8nExecution): BatchTimeline {
	const submit = execution.nodes.Submit;
	const collect = execution.nodes.Collect;
	if (!submit || !collect) throw new Error(`execution ${execution.executionId}: no run data for Submit or Collect`);
	return { firedAt: execution.firedAt, endedAt: execution.answeredAt, submit, collect, jobs: execution.slots };
}

/** The timeline of an engine batch (one execution). */
export function engineTimeline(result: NodesBatchResult): BatchTimeline {
	const nodes = result.executions[0]?.nodes;
	if (!nodes?.Submit || !nodes.Collect) throw new Error('engine batch: no run data for Submit or Collect');
	return { firedAt: result.startedAt, endedAt: result.startedAt + result.wallMs, submit: nodes.Submit, collect: nodes.Collect, jobs: result.jobs };
}

/** Medians of each numeric field over the runs (each field on its own: the medians need not add up). */
export function medianPath(paths: readonly CriticalPath[]): CriticalPath {
	const keys = Object.keys(paths[0]) as Array<keyof CriticalPath>;
	return Object.fromEntries(keys.map((key) => [key, median(paths.map((p) => p[key]))])) as unknown as CriticalPath;
}

/** A driver runs a batch; `gcBetween` reads its process's collections in a window (epoch ms), once the process went on past it. */
type Driver = { name: string; batch(range: RangeName, prefix: string, size: SizeTag): Promise<{ batch: MeasuredBatch; window: { from: number; to: number } }>; gcBetween(from: number, to: number): GcTally | undefined };

/** `gcLog`: the file the worker records its garbage collections in (its FLUX_BENCH_GC_LOG). */
function engineDriver(worker: Worker, sims: Record<RangeName, SizedSim>, gcLog: string): Driver {
	return {
		name: ENGINE_DRIVER,
		async batch(range, prefix, size) {
			const sized = sims[range];
			const { result } = await worker.run<NodesBatchResult>({ kind: 'nodesBatch', sim: sized.ref, prefix, suffix: sizeSuffix(size), executions: [BATCH], concurrent: false });
			checkBatch(`engine ${range} ${size}`, result, BATCH);
			const batch: MeasuredBatch = {
				path: criticalPath(engineTimeline(result), sized.sim.log),
				cpuMs: result.cpu.user + result.cpu.system,
				systemCpuMs: result.cpu.system,
				mainThreadCpuMs: result.mainThreadCpuMs,
				helperThreadsCpuMs: result.helperThreadsCpuMs,
			};
			return { batch, window: { from: result.startedAt, to: result.startedAt + result.wallMs } };
		},
		gcBetween: (from, to) => gcBetween(gcLog, from, to),
	};
}

function realDriver(session: RealN8nSession, sims: Record<RangeName, SizedSim>): Driver {
	return {
		name: n8nDriver(session.version),
		async batch(range, prefix, size) {
			const execution = await session.fire(range, prompts(prefix, size));
			const failed = execution.slots.filter((slot) => slot.status !== 'success');
			if (failed.length > 0) throw new Error(`n8n ${session.version} ${range} ${size}: ${failed.length} slot(s) did not succeed`);
			const batch: MeasuredBatch = {
				path: criticalPath(n8nTimeline(execution), sims[range].sim.log),
				cpuMs: execution.n8nCpuMs,
				systemCpuMs: execution.n8nSystemCpuMs,
				...execution.n8nThreads,
				executionId: execution.executionId,
			};
			return { batch, window: { from: execution.firedAt, to: execution.answeredAt } };
		},
		gcBetween: (from, to) => session.gcBetween(from, to),
	};
}

function describe(driver: string, label: string, batch: MeasuredBatch): string {
	const p = batch.path;
	return `${driver}, ${label}: wall ${s(p.wallMs)} = ${fixed(p.ratio, 3)}× the slowest job, ${fixed(p.pollsPerJob, 1)} polls/job, excess ${ms(excessMs(p))}`;
}

export async function runRealN8n(bench: Bench): Promise<RealN8nScenario | undefined> {
	const { versions, runs } = bench.config.REAL_N8N;
	if (versions.length === 0) {
		log('real n8n (14): skipped (--real-n8n=off)');
		return undefined;
	}
	const startedAt = Date.now();
	const atStart = os.loadavg();
	const scale = bench.config.quick ? 0.1 : 1;
	const ranges: Record<RangeName, { min: number; max: number }> = { short: { min: 1500 * scale, max: 3500 * scale }, long: { min: 12_000 * scale, max: 20_000 * scale } };
	const buildMs = await buildPackage('real n8n');
	// The seeds of scenario 12: the same prompts get the same latencies there and here.
	const sims: Record<RangeName, SizedSim> = { short: await startSizedSim(ranges.short, 'short'), long: await startSizedSim(ranges.long, 'long') };
	const sessions: RealN8nSession[] = [];
	const servers: ServerInfo[] = [];
	const errors: string[] = [];
	const gcDir = mkdtempSync(path.join(os.tmpdir(), 'flux-bench-engine-gc-'));
	const gcLog = path.join(gcDir, 'gc.jsonl');
	writeFileSync(gcLog, ''); // exists from the start: a missing file means not recorded
	try {
		const worker = await bench.startWorker('E (real-n8n side by side)', { COMFLY_IMAGE_CONCURRENCY: String(bench.config.C), BENCH_BINARY_MODE: 'filesystem', [GC_LOG_ENV]: gcLog });
		const targets = (Object.keys(sims) as RangeName[]).map((range) => ({ key: range, url: sims[range].ref.url, apiKey: sims[range].ref.apiKey }));
		for (const version of versions) {
			try {
				log(`real n8n: starting n8n ${version} (a scratch home, the package packed and installed, n8n start) …`);
				const session = await openRealN8n(version, targets, (line) => log(`  [n8n ${version}] ${line}`), { recordGc: true });
				sessions.push(session);
				servers.push({ version, nodeVersion: session.nodeVersion, setupMs: session.setupMs, startupMs: session.startupMs });
				log(`real n8n ${version} (Node ${session.nodeVersion}): home ready in ${s(session.setupMs)}, n8n start ready in ${s(session.startupMs)}`);
			} catch (error) {
				const message = error instanceof Error ? error.message : String(error);
				servers.push({ version, error: message });
				errors.push(`n8n ${version} did not start: ${message.slice(0, 2000)}`);
				log(`real n8n ${version}: FAILED to start: ${message.slice(0, 500)}`);
			}
		}
		const drivers = [engineDriver(worker, sims, gcLog), ...sessions.map((session) => realDriver(session, sims))];
		const cold: RealN8nScenario['cold'] = [];
		const windows: Array<{ driver: Driver; batch: MeasuredBatch; window: { from: number; to: number } }> = [];
		const byShape = new Map<string, Map<string, MeasuredBatch[]>>();
		for (const range of ['short', 'long'] as RangeName[]) {
			for (const driver of drivers) {
				const { batch } = await driver.batch(range, `${range} warm-up`, '1m');
				cold.push({ range, driver: driver.name, batch });
				log(describe(driver.name, `${range} cold batch`, batch));
			}
			for (const shape of REAL_N8N_SHAPES.filter((sh) => sh.range === range)) {
				const perDriver = new Map<string, MeasuredBatch[]>(drivers.map((d) => [d.name, []]));
				byShape.set(shape.id, perDriver);
				for (let run = 0; run < runs; run++) {
					// The drivers take turns, starting one further each run, so none always runs right after another.
					for (let k = 0; k < drivers.length; k++) {
						const driver = drivers[(run + k) % drivers.length];
						const { batch, window } = await driver.batch(range, `${range} job`, shape.size);
						perDriver.get(driver.name)!.push(batch);
						windows.push({ driver, batch, window });
						log(describe(driver.name, `${range} ${shape.size} run ${run + 1}`, batch));
					}
				}
			}
		}
		// Each batch's collections, read once every batch ran: a collection's line is written a few turns after it.
		for (const { driver, batch, window } of windows) {
			const gc = driver.gcBetween(window.from, window.to);
			if (gc) batch.gc = gc;
		}
		const shapes: ShapeResult[] = REAL_N8N_SHAPES.map((shape) => ({
			shape,
			drivers: [...byShape.get(shape.id)!].map(([driver, batches]) => ({
				driver,
				runs: batches,
				median: medianPath(batches.map((b) => b.path)),
				medianCpuMs: median(batches.map((b) => b.cpuMs ?? NaN)),
				medianSystemCpuMs: median(batches.map((b) => b.systemCpuMs ?? NaN)),
				medianMainThreadCpuMs: median(batches.map((b) => b.mainThreadCpuMs ?? NaN)),
				medianGcPauseMs: median(batches.map((b) => b.gc?.pauseMs ?? NaN)),
			})),
		}));
		await worker.close();
		return { ranges, runs, versions, servers, cold, shapes, buildMs, durationMs: Date.now() - startedAt, loadAverage: { atStart, atEnd: os.loadavg() }, errors };
	} finally {
		for (const session of sessions) await session.close().catch(() => undefined);
		for (const sized of Object.values(sims)) await sized.sim.close();
		rmSync(gcDir, { recursive: true, force: true });
	}
}

/** The parts of a path's excess over the slowest job, as "name value" text. */
export function excessText(p: CriticalPath): string {
	return EXCESS_PARTS.map(([key, name]) => `${name} ${ms(p[key])}`).join(', ') + (p.slackMs > 0 ? `, less ${ms(p.slackMs)} the last job's head start on the slowest` : '');
}
