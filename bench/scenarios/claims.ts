/**
 * The claims scenario: one paid job, one owner. (a) The claim's and journal's cost on the miss path: fresh batches
 * of 30 with Cache `reuse` (every job misses the store, claims its key, journals `submitting` durably, sends,
 * stores, lets go), alternating on and off (`claims: 'off'`: the claim's acquire and release and the journal's
 * reads and writes do nothing, all else the same) in one fresh worker
 * with its own store folder; cost = (median on − median off) / median off, a ratio within one run.
 * (b) The store folder's size while 1,000 batches of 5 fresh jobs (64 KiB images) run under COMFLY_STORE_MAX_MB = 8,
 * four executions at a time: measured after every four batches (apparent bytes and bytes on disk), with no prune
 * forced from outside (the store prunes itself as it grows).
 * Alone: `npx ts-node --transpile-only bench/scenarios/claims.ts [--quick]`.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { startRelaySimulator, type RelaySimulator } from '../../relay-sim';
import { benchConfig, parseBenchArgs } from '../config';
import { checkBatch, failedSlots } from '../jobs';
import { fixed, log, mib, s } from '../format';
import type { NodesBatchResult } from '../protocol';
import { openBench, type Bench } from '../session';
import { median } from '../stats';
import type { Worker } from '../workerProcess';

/** Goal claims-a: the claim and the journal add at most this fraction to a fresh 30-job batch's makespan. */
export const CLAIM_COST_GOAL = 0.02;
/** Goal claims-b: the store's size bound (COMFLY_STORE_MAX_MB) and the batches run under it. */
export const BOUND_MB = 8;
export const BOUND_IMAGE_BYTES = 64 * 1024;
export const BOUND_JOBS_PER_BATCH = 5;
/** Goal claims-b: the margin the peak may take over the bound while a background prune runs (reported with the peak). */
export const BOUND_SLACK = 0.25;

export interface ClaimRun {
	wallMs: number;
	submits: number;
}

export interface ClaimCost {
	on: ClaimRun[];
	off: ClaimRun[];
	/** (median with claims − median without) / median without. */
	cost: number;
}

export interface FolderBound {
	maxBytes: number;
	batches: number;
	jobs: number;
	imageBytes: number;
	/** Largest and last size of the folder, sampled after every batch (apparent bytes; bytes on disk). */
	peakBytes: number;
	peakDiskBytes: number;
	lastBytes: number;
	lastDiskBytes: number;
	/** What the batches wrote in all (images alone). */
	writtenBytes: number;
	failedSlots: number;
	wallMs: number;
}

export interface ClaimsScenario {
	pairs: number;
	miss: ClaimCost;
	bound: FolderBound;
}

export async function runClaims(bench: Bench): Promise<ClaimsScenario> {
	// 16 pairs: a batch's makespan varies by ±60 ms with the polls that find its jobs ready (30 jobs ready within about
	// 200 ms, polled at most 25 times a second), more than the cost measured; a median of 10 still moved by ±0.01.
	const pairs = bench.config.quick ? 2 : 16;
	const miss = await runClaimCost(bench, pairs);
	log(`claims: miss-path cost ${fixed(miss.cost, 3)} of the makespan (on vs off, ${pairs} pairs)`);
	const bound = await runFolderBound(bench, bench.config.quick ? 100 : 1000);
	log(`claims: store folder after ${bound.batches} batches: peak ${mib(bound.peakBytes)}, last ${mib(bound.lastBytes)} (bound ${mib(bound.maxBytes)}; ${mib(bound.writtenBytes)} written)`);
	return { pairs, miss, bound };
}

async function runClaimCost(bench: Bench, pairs: number): Promise<ClaimCost> {
	const { config } = bench;
	const sim = await startRelaySimulator({ latencyMs: config.LATENCY, imageBytes: config.STORE_IMAGE_BYTES, imageSize: { width: 8, height: 8 } });
	const storeDir = mkdtempSync(path.join(tmpdir(), 'flux-bench-claims-'));
	try {
		log('claims: fresh worker, its own store folder, alternating batches with claims on and off …');
		const w = await bench.startWorker('K', { COMFLY_IMAGE_CONCURRENCY: String(config.C), BENCH_BINARY_MODE: 'filesystem', COMFLY_STORE_DIR: storeDir });
		await runBatch(sim, w, 'claims warm-up', 'on');
		const on: ClaimRun[] = [];
		const off: ClaimRun[] = [];
		for (let pair = 0; pair < pairs; pair++) {
			const order = pair % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
			for (const claims of order) (claims === 'on' ? on : off).push(await runBatch(sim, w, `claims ${claims} ${pair}`, claims));
		}
		await w.close();
		const [withClaims, without] = [median(on.map((r) => r.wallMs)), median(off.map((r) => r.wallMs))];
		return { on, off, cost: (withClaims - without) / without };
	} finally {
		await sim.close();
		rmSync(storeDir, { recursive: true, force: true });
	}
}

async function runBatch(sim: RelaySimulator, w: Worker, prefix: string, claims: 'on' | 'off'): Promise<ClaimRun> {
	sim.reset();
	const { result } = await w.run<NodesBatchResult>({ kind: 'nodesBatch', sim: { url: sim.url, apiKey: sim.apiKey }, prefix, executions: [30], concurrent: false, cache: 'reuse', claims });
	checkBatch(`claims ${prefix}`, result, 30);
	return { wallMs: result.wallMs, submits: sim.log.submits.length };
}

async function runFolderBound(bench: Bench, batches: number): Promise<FolderBound> {
	const sim = await startRelaySimulator({ latencyMs: 0, imageBytes: BOUND_IMAGE_BYTES, imageSize: { width: 8, height: 8 } });
	const storeDir = mkdtempSync(path.join(tmpdir(), 'flux-bench-bound-'));
	const started = performance.now();
	try {
		log(`claims: ${batches} batches of ${BOUND_JOBS_PER_BATCH} under COMFLY_STORE_MAX_MB=${BOUND_MB} …`);
		const w = await bench.startWorker('F', { COMFLY_IMAGE_CONCURRENCY: '30', BENCH_BINARY_MODE: 'filesystem', COMFLY_STORE_DIR: storeDir, COMFLY_STORE_MAX_MB: String(BOUND_MB) });
		const bound: FolderBound = { maxBytes: BOUND_MB * 1024 * 1024, batches, jobs: batches * BOUND_JOBS_PER_BATCH, imageBytes: BOUND_IMAGE_BYTES, peakBytes: 0, peakDiskBytes: 0, lastBytes: 0, lastDiskBytes: 0, writtenBytes: 0, failedSlots: 0, wallMs: 0 };
		for (let done = 0; done < batches; done += AT_ONCE) {
			const executions = Array<number>(Math.min(AT_ONCE, batches - done)).fill(BOUND_JOBS_PER_BATCH);
			const { result } = await w.run<NodesBatchResult>({ kind: 'nodesBatch', sim: { url: sim.url, apiKey: sim.apiKey }, prefix: `bound ${done}`, executions, concurrent: true, cache: 'reuse' });
			sim.reset();
			const size = folderSize(storeDir);
			bound.peakBytes = Math.max(bound.peakBytes, size.bytes);
			bound.peakDiskBytes = Math.max(bound.peakDiskBytes, size.diskBytes);
			bound.lastBytes = size.bytes;
			bound.lastDiskBytes = size.diskBytes;
			bound.writtenBytes += executions.length * BOUND_JOBS_PER_BATCH * BOUND_IMAGE_BYTES;
			bound.failedSlots += failedSlots(result);
		}
		await w.close();
		bound.wallMs = performance.now() - started;
		return bound;
	} finally {
		await sim.close();
		rmSync(storeDir, { recursive: true, force: true });
	}
}

/** Executions run at once in goal claims-b (the folder is measured after each group). */
const AT_ONCE = 4;

/** The size of what is below `dir`: the files' apparent bytes, and bytes on disk (the blocks of files and folders).
 *  Walked a folder at a time: the store removes folders as they empty (and files as it prunes) during the walk. */
function folderSize(dir: string): { bytes: number; diskBytes: number } {
	let bytes = 0;
	let diskBytes = 0;
	const walk = (folder: string) => {
		let names: string[];
		try {
			names = readdirSync(folder);
		} catch {
			return; // removed meanwhile
		}
		for (const name of names) {
			const file = path.join(folder, name);
			const info = statSync(file, { throwIfNoEntry: false });
			if (!info) continue;
			diskBytes += info.blocks * 512;
			if (info.isDirectory()) walk(file);
			else if (info.isFile()) bytes += info.size;
		}
	};
	walk(dir);
	return { bytes, diskBytes };
}

/** The claims scenario alone (no goals table): the numbers as the bench logs them. */
if (require.main === module) {
	const config = benchConfig(parseBenchArgs(process.argv.slice(2)).quick);
	void (async () => {
		const bench = await openBench(config);
		try {
			const result = await runClaims(bench);
			log(`claims: on ${result.miss.on.map((r) => s(r.wallMs)).join(', ')}; off ${result.miss.off.map((r) => s(r.wallMs)).join(', ')}`);
			log(`claims: bound ${JSON.stringify(result.bound)}`);
		} finally {
			await bench.close();
		}
	})().catch((error: unknown) => {
		console.error(error);
		process.exitCode = 1;
	});
}
