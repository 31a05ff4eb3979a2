/** One benchmark session: its configuration, the relay simulator, and the workers it started (closed together). */
import { startRelaySimulator, type RelaySimulator } from '../relay-sim';
import type { BenchConfig } from './config';
import { benchStart } from './format';
import type { SimRef } from './protocol';
import { startWorker, type Worker } from './workerProcess';

export interface Bench {
	config: BenchConfig;
	/** The simulator of scenarios 1–4 and 6 (1 MiB images). */
	sim: RelaySimulator;
	simRef: SimRef;
	/** Each worker's ready message, by label (results.json: engine.workers). */
	engines: Record<string, unknown>;
	/** Printed at the end. */
	notes: string[];
	/** A worker with this environment (COMFLY_* and BENCH_BINARY_MODE), closed with the session. */
	startWorker(label: string, env: Record<string, string>): Promise<Worker>;
	close(): Promise<void>;
}

export async function openBench(config: BenchConfig): Promise<Bench> {
	// Realistic file sizes: 8×8-pixel pictures padded to 1 MiB (the padding is built once and shared).
	const sim = await startRelaySimulator({ latencyMs: config.LATENCY, imageSize: { width: 8, height: 8 }, imageBytes: config.MAIN_IMAGE_BYTES });
	const workers: Worker[] = [];
	const engines: Record<string, unknown> = {};
	const bounds = { deadline: benchStart + config.BENCH_DEADLINE_MS, taskDeadlineMs: config.TASK_DEADLINE_MS };
	return {
		config,
		sim,
		simRef: { url: sim.url, apiKey: sim.apiKey },
		engines,
		notes: [],
		async startWorker(label, env) {
			const worker = await startWorker(label, env, bounds);
			workers.push(worker);
			engines[label] = worker.ready;
			return worker;
		},
		async close() {
			for (const w of workers) await w.close().catch(() => undefined);
			await sim.close();
		},
	};
}
