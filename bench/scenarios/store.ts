/**
 * Scenario 8, the result store. (a) A 30-slot batch run twice with the default Cache
 * (`reuse`): the re-run is served entirely from the store (time, submits upstream, bytes read).
 * (b) The store's cost on the miss path: fresh batches with Cache `reuse` (result written to the store,
 * read back by the collector) against Cache `off` (results neither read nor written; the journal is
 * written either way), alternating in one worker; the cost is the makespan difference as a fraction.
 * One warm-up batch (Cache `off`) runs first, so no row pays for the worker's first execution.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { startRelaySimulator, type RelaySimulator } from '../../relay-sim';
import { checkBatch } from '../jobs';
import { fixed, log, mib, s } from '../format';
import type { NodesBatchResult, NodesBatchTask } from '../protocol';
import type { Bench } from '../session';
import { median } from '../stats';
import type { Worker } from '../workerProcess';

/** Goal 8b: the store adds at most this fraction to a fresh batch's makespan. */
export const STORE_MISS_COST_GOAL = 0.05;

export interface StoreRun {
	wallMs: number;
	/** Submit requests the simulator received during the run. */
	submits: number;
	/** Images the simulator served (downloads). */
	downloads: number;
	/** Slots the collector's report counts as served from the store. */
	cached: number;
	/** The longest upstream latency of the run's tasks (its zero-overhead makespan; 0 when nothing was sent). */
	idealMs: number;
}

export interface StoreRerun {
	first: StoreRun;
	second: StoreRun;
	/** Second run's wall / first run's makespan. */
	ratio: number;
	/** Bytes the re-run read from the store: its cached slots × the stored image size. */
	bytesRead: number;
	/** The store folder's size on disk after both runs. */
	storeFolderBytes: number;
}

export interface StoreMissCost {
	reuse: StoreRun[];
	off: StoreRun[];
	/** (median makespan with `reuse` − median with `off`) / median with `off`. */
	cost: number;
}

export interface StoreScenario {
	imageBytes: number;
	storeDir: string;
	rerun: StoreRerun;
	miss: StoreMissCost;
}

export async function runStore(bench: Bench): Promise<StoreScenario> {
	const { config } = bench;
	const sim = await startRelaySimulator({ latencyMs: config.LATENCY, imageBytes: config.STORE_IMAGE_BYTES, imageSize: { width: 8, height: 8 } });
	// Its own store folder (removed at the end), so the folder's size is this scenario's alone.
	const storeDir = mkdtempSync(path.join(tmpdir(), 'flux-bench-store-8-'));
	try {
		log(`store: fresh worker, its own store folder, ${mib(config.STORE_IMAGE_BYTES)} images …`);
		const w = await bench.startWorker('S', { COMFLY_IMAGE_CONCURRENCY: String(config.C), BENCH_BINARY_MODE: 'filesystem', COMFLY_STORE_DIR: storeDir });
		await runBatch(sim, w, 'store warm-up', 'off'); // a warm worker: the first run is not the engine's first
		const rerun = await runRerun(sim, w, config.STORE_IMAGE_BYTES, storeDir);
		log(`store: re-run ${s(rerun.second.wallMs)} (${fixed(rerun.ratio)}× the first run's ${s(rerun.first.wallMs)}), ${rerun.second.submits} submits, ${mib(rerun.bytesRead)} read`);
		const miss = await runMissCost(sim, w, config.STORE_MISS_PAIRS);
		log(`store: miss-path cost ${fixed(miss.cost, 3)} of the makespan (reuse vs off, ${config.STORE_MISS_PAIRS} pairs)`);
		await w.close();
		return { imageBytes: config.STORE_IMAGE_BYTES, storeDir, rerun, miss };
	} finally {
		await sim.close();
		rmSync(storeDir, { recursive: true, force: true });
	}
}

async function runRerun(sim: RelaySimulator, w: Worker, imageBytes: number, storeDir: string): Promise<StoreRerun> {
	const first = await runBatch(sim, w, 'store rerun', 'reuse');
	const second = await runBatch(sim, w, 'store rerun', 'reuse');
	return { first, second, ratio: second.wallMs / first.wallMs, bytesRead: second.cached * imageBytes, storeFolderBytes: folderBytes(storeDir) };
}

/** Alternating pairs (which mode goes first alternates too), each batch with prompts never sent before. */
async function runMissCost(sim: RelaySimulator, w: Worker, pairs: number): Promise<StoreMissCost> {
	const reuse: StoreRun[] = [];
	const off: StoreRun[] = [];
	for (let pair = 0; pair < pairs; pair++) {
		const order = pair % 2 === 0 ? (['reuse', 'off'] as const) : (['off', 'reuse'] as const);
		for (const cache of order) (cache === 'reuse' ? reuse : off).push(await runBatch(sim, w, `store miss ${cache} ${pair}`, cache));
	}
	const [withStore, without] = [median(reuse.map((r) => r.wallMs)), median(off.map((r) => r.wallMs))];
	return { reuse, off, cost: (withStore - without) / without };
}

async function runBatch(sim: RelaySimulator, w: Worker, prefix: string, cache: NonNullable<NodesBatchTask['cache']>): Promise<StoreRun> {
	sim.reset();
	const { result } = await w.run<NodesBatchResult>({ kind: 'nodesBatch', sim: { url: sim.url, apiKey: sim.apiKey }, prefix, executions: [30], concurrent: false, cache });
	checkBatch(`store ${prefix}`, result, 30);
	const latencies = [...sim.log.tasks.values()].map((t) => t.latencyMs);
	return {
		wallMs: result.wallMs,
		submits: sim.log.submits.length,
		downloads: sim.log.downloads,
		cached: result.executions[0]?.cached ?? 0,
		idealMs: latencies.length === 0 ? 0 : Math.max(...latencies),
	};
}

/** Total size of the files under `dir`. */
function folderBytes(dir: string): number {
	let total = 0;
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		total += entry.isDirectory() ? folderBytes(full) : entry.isFile() ? statSync(full).size : 0;
	}
	return total;
}
