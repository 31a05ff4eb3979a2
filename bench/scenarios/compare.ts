/**
 * Scenario 12, side by side: the same 30-job batch, both latency ranges, realistic image sizes, through
 *  - this package (submit → collect, through n8n's engine; after one warm-up batch of the range, so the
 *    schedule has the times it learns in a running n8n),
 *  - its serial node (FLUX 3 Image, through the engine),
 *  - the ComfyUI pack's way (30 workers, a fixed 5 s poll, sleeping 5 s before the first poll),
 *  - a typical n8n peer node (serial, polls at once and then every 5 s),
 *  - n8n's native way (HTTP Request + Wait loop: per item in sequence, Wait 5 s, then poll every 5 s).
 * The other tools' ways are modelled with this package's own client (generateImage on an isolated pool,
 * their poll schedule, no poll rate cap) against the same simulator. Each row is a ratio to the physical
 * limit: the batch's slowest upstream latency plus one download (measured by a probe in the same worker).
 * Serial rows of the 12–20 s range would take ~9 minutes each; they run with every time ÷ 10 (latencies
 * 1.2–2 s, 500 ms polls) and are marked so. The serial rows run in parallel with each other (they mostly
 * sleep), after the concurrent rows, which run alone.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

import { join, pollsPerJob, type JoinedJob } from '../jobs';
import { fixed, log, s } from '../format';
import type { DirectResult, DirectTask, NodesBatchResult, SerialResult } from '../protocol';
import type { Bench } from '../session';
import { peakPollsPerSecond, sizeSuffix, startSizedSim, type SizedSim, type SizeTag } from '../sizedSim';
import { max, median } from '../stats';
import type { Worker } from '../workerProcess';

export type RangeName = 'short' | 'long';
export const APPROACHES = ['this package (submit + collect)', 'its serial node', 'ComfyUI pack (5 s poll, sleeps first)', 'n8n peer node (serial, 5 s poll)', 'n8n native (HTTP Request + Wait 5 s)'] as const;
export type Approach = (typeof APPROACHES)[number];

export interface ApproachRow {
	approach: Approach;
	range: RangeName;
	size: SizeTag;
	wallMs: number;
	slowestMs: number;
	downloadMs: number;
	limitMs: number;
	/** wall / (slowest latency + one download). */
	ratio: number;
	pollsPerJob: number;
	/** 1, or 0.1 for rows run with every time ÷ 10. */
	timeScale: number;
	failed: number;
}

/** One of this package's N = 30 rows, with what the goals need. */
export interface PackageRow extends ApproachRow {
	/** wall / slowest latency (the goal's measure). */
	vsSlowest: number;
	/** The most polls in any one-second window of the simulator's stamps (when its process handled them). */
	peakPollsPerSecond: number;
	/** The same, over the times the polls left the worker (what the cap governs). */
	clientPeakPollsPerSecond: number;
	/** The simulator's (this process's) longest event-loop stall during the row: how late its stamps can be. */
	simLoopMaxMs: number;
	/** The most stamps in any window of 1 s − simLoopMaxMs: polls that must have arrived within one second. */
	surePeakPollsPerSecond: number;
	jobs: JoinedJob[];
	result: NodesBatchResult;
}

export interface Comparison {
	ranges: Record<RangeName, { min: number; max: number }>;
	sizes: SizeTag[];
	packageRows: PackageRow[];
	/** This package's first (cold) batch per range: nothing learned yet. */
	coldRows: PackageRow[];
	rows: ApproachRow[];
	downloadMs: Record<SizeTag, number>;
	pollRate: number;
}

const FIXED_5S = (delayMs: number, firstPollDelayMs: number) =>
	({ initialDelayMs: delayMs, factor: 1, maxDelayMs: delayMs, jitter: 0, elapsedFraction: 0, firstPollDelayMs, adaptive: false }) as const;

export async function runComparison(bench: Bench, worker: Worker, pollRate: number): Promise<Comparison> {
	const scale = bench.config.quick ? 0.1 : 1;
	const ranges = { short: { min: 1500 * scale, max: 3500 * scale }, long: { min: 12_000 * scale, max: 20_000 * scale } };
	const sims = { short: await startSizedSim(ranges.short, 'short'), long: await startSizedSim(ranges.long, 'long'), longScaled: await startSizedSim({ min: ranges.long.min / 10, max: ranges.long.max / 10 }, 'long') };
	const sizes: SizeTag[] = ['1m', '4m'];
	try {
		const downloadMs = await probeDownloads(worker, sims.short);
		const { packageRows, coldRows } = await packageRowsFor(worker, sims, sizes, downloadMs);
		const comfy = await comfyRows(worker, sims, sizes, downloadMs, 5000 * scale);
		const serial = await serialRows(worker, sims, sizes, downloadMs, 5000 * scale);
		return { ranges, sizes, packageRows, coldRows, rows: [...packageRows, ...comfy, ...serial], downloadMs, pollRate };
	} finally {
		for (const sized of Object.values(sims)) await sized.sim.close();
	}
}

/** One download of each size, the median of 5 one at a time (Ready at once: latency 0). */
async function probeDownloads(worker: Worker, sized: SizedSim): Promise<Record<SizeTag, number>> {
	const out = {} as Record<SizeTag, number>;
	for (const size of ['1m', '4m', '16m'] as SizeTag[]) {
		const { result } = await worker.run<DirectResult>({ kind: 'direct', sim: sized.ref, prefix: 'probe', suffix: sizeSuffix(size), count: 5, concurrency: 1, pollCap: false });
		out[size] = median(result.jobs.map((j) => j.downloadMs ?? NaN));
	}
	log(`one download: ${Object.entries(out).map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join(', ')}`);
	return out;
}

function rowOf(approach: Approach, range: RangeName, size: SizeTag, wallMs: number, jobs: JoinedJob[], downloadMs: number, timeScale = 1): ApproachRow {
	const slowestMs = max(jobs.map((j) => j.latencyMs ?? NaN));
	const limitMs = slowestMs + downloadMs;
	const failed = jobs.filter((j) => j.state !== 'succeeded').length;
	return { approach, range, size, wallMs, slowestMs, downloadMs, limitMs, ratio: wallMs / limitMs, pollsPerJob: pollsPerJob(jobs), timeScale, failed };
}

type Sims = Record<RangeName | 'longScaled', SizedSim>;

async function packageRow(worker: Worker, sized: SizedSim, range: RangeName, size: SizeTag, prefix: string, downloadMs: number): Promise<PackageRow> {
	const loop = monitorEventLoopDelay({ resolution: 5 });
	loop.enable();
	const { result } = await worker.run<NodesBatchResult>({ kind: 'nodesBatch', sim: sized.ref, prefix, suffix: sizeSuffix(size), executions: [30], concurrent: false });
	loop.disable();
	const jobs = join(result.jobs, sized.sim.log);
	const row = rowOf(APPROACHES[0], range, size, result.wallMs, jobs, downloadMs);
	const [from, to] = [result.startedAt, result.startedAt + result.wallMs];
	const simLoopMaxMs = loop.max / 1e6;
	return {
		...row,
		vsSlowest: result.wallMs / row.slowestMs,
		peakPollsPerSecond: peakPollsPerSecond(sized.sim.log.pollTimes, from, to),
		clientPeakPollsPerSecond: peakPollsPerSecond(result.pollStarts ?? [], from, to),
		simLoopMaxMs,
		surePeakPollsPerSecond: peakPollsPerSecond(sized.sim.log.pollTimes, from, to, 1000 - simLoopMaxMs),
		jobs,
		result,
	};
}

async function packageRowsFor(worker: Worker, sims: Sims, sizes: SizeTag[], downloadMs: Record<SizeTag, number>) {
	const packageRows: PackageRow[] = [];
	const coldRows: PackageRow[] = [];
	for (const range of ['short', 'long'] as RangeName[]) {
		const sized = sims[range];
		sized.reset();
		coldRows.push(await packageRow(worker, sized, range, '1m', `${range} warm-up`, downloadMs['1m']));
		for (const size of range === 'short' ? [...sizes, '16m' as SizeTag] : sizes) {
			const row = await packageRow(worker, sized, range, size, `${range} job`, downloadMs[size]);
			packageRows.push(row);
			log(`package, ${range} ${size}: wall ${s(row.wallMs)} = ${fixed(row.vsSlowest, 3)}× the slowest job, ${fixed(row.pollsPerJob, 1)} polls/job, peak ${row.peakPollsPerSecond} polls/s`);
		}
	}
	return { packageRows, coldRows };
}

async function directRow(worker: Worker, sized: SizedSim, task: Omit<DirectTask, 'kind' | 'sim'>, approach: Approach, range: RangeName, size: SizeTag, downloadMs: number, timeScale = 1) {
	const { result } = await worker.run<DirectResult>({ kind: 'direct', sim: sized.ref, ...task });
	return rowOf(approach, range, size, result.wallMs, join(result.jobs, sized.sim.log), downloadMs, timeScale);
}

async function comfyRows(worker: Worker, sims: Sims, sizes: SizeTag[], downloadMs: Record<SizeTag, number>, pollMs: number): Promise<ApproachRow[]> {
	const rows: ApproachRow[] = [];
	for (const range of ['short', 'long'] as RangeName[]) {
		for (const size of sizes) {
			const task = { prefix: `${range} job`, suffix: sizeSuffix(size), count: 30, concurrency: 30, poll: FIXED_5S(pollMs, pollMs), pollCap: false };
			rows.push(await directRow(worker, sims[range], task, APPROACHES[2], range, size, downloadMs[size]));
			log(`ComfyUI way, ${range} ${size}: wall ${s(rows.at(-1)!.wallMs)}`);
		}
	}
	return rows;
}

/** The serial ways, all at once (each mostly sleeps); the 12–20 s range with every time ÷ 10. */
async function serialRows(worker: Worker, sims: Sims, sizes: SizeTag[], downloadMs: Record<SizeTag, number>, pollMs: number): Promise<ApproachRow[]> {
	const runs: Array<Promise<ApproachRow>> = [];
	log('serial ways (serial node, peer node, native), both ranges, in parallel (the 12–20 s range with times ÷ 10) …');
	for (const range of ['short', 'long'] as RangeName[]) {
		const [sized, scale] = range === 'short' ? [sims.short, 1] : [sims.longScaled, 0.1];
		const poll = pollMs * scale;
		for (const size of sizes) {
			const base = { prefix: `${range} job`, suffix: sizeSuffix(size), count: 30, concurrency: 1, pollCap: false };
			runs.push(serialNodeRow(worker, sized, range, size, downloadMs[size], scale));
			runs.push(directRow(worker, sized, { ...base, poll: FIXED_5S(poll, 0) }, APPROACHES[3], range, size, downloadMs[size], scale));
			runs.push(directRow(worker, sized, { ...base, poll: FIXED_5S(poll, poll) }, APPROACHES[4], range, size, downloadMs[size], scale));
		}
	}
	return await Promise.all(runs);
}

async function serialNodeRow(worker: Worker, sized: SizedSim, range: RangeName, size: SizeTag, downloadMs: number, timeScale: number): Promise<ApproachRow> {
	const { result } = await worker.run<SerialResult>({ kind: 'serial', sim: sized.ref, prefix: `${range} job`, suffix: sizeSuffix(size), count: 30 });
	if (result.status !== 'success') throw new Error(`serial node ${range} ${size}: ${result.status} ${result.error ?? ''}`);
	const jobs: JoinedJob[] = join(
		result.taskIds.map((taskId) => ({ jobId: taskId, taskId, state: 'succeeded', queuedAt: 0, attempts: 0 })),
		sized.sim.log,
	);
	return rowOf(APPROACHES[1], range, size, result.wallMs, jobs, downloadMs, timeScale);
}
