/**
 * Scenario 13, scaling. A fresh worker (filesystem binary mode, Cache off so the rows measure
 * the pool and n8n, not the result store) runs N = 30 (one execution), 300 (10 executions of 30 at once)
 * and 3,000 (100 executions of 30 at once) at image sizes 1, 4 and 16 MiB: wall (and the ideal FIFO
 * schedule), CPU per job, peak RSS, bytes the pool retains after collection, and the event loop's
 * delay (perf_hooks.monitorEventLoopDelay). Latencies are 0.4–0.6 s here (÷ 5 of the usual 2 s) so that
 * N = 3,000 takes about a minute; 16 MiB runs at N = 30 only and 3,000 at 1 MiB only (300 × 16 MiB took
 * 4.5 minutes and 4.5 GiB of RSS on the 2-core machine; 3,000 × 16 MiB would move 47 GiB).
 */
import { checkBatch } from '../jobs';
import { fixed, log, mib, ms, s } from '../format';
import type { NodesBatchResult } from '../protocol';
import type { Bench } from '../session';
import { sizeSuffix, startSizedSim, type SizeTag } from '../sizedSim';
import { listScheduleMakespan } from '../stats';

export interface ScalingRow {
	n: number;
	executions: number;
	size: SizeTag;
	wallMs: number;
	idealMs: number;
	cpuMsPerJob: number;
	peakRss: number;
	baselineRss: number;
	retainedBytes: number;
	loopDelay?: NodesBatchResult['loopDelay'];
	/** When the first execution's collector finished (ms after the start). */
	firstCollectorMs: number;
}

const PLAN: Array<{ n: number; sizes: SizeTag[] }> = [
	{ n: 30, sizes: ['1m', '4m', '16m'] },
	{ n: 300, sizes: ['1m', '4m'] },
	{ n: 3000, sizes: ['1m'] },
];

export async function runScaling(bench: Bench): Promise<ScalingRow[]> {
	const { config } = bench;
	const scale = config.quick ? 0.1 : 1;
	const sized = await startSizedSim({ min: 400 * scale, max: 600 * scale }, 'scaling');
	try {
		const w = await bench.startWorker('SC', { COMFLY_IMAGE_CONCURRENCY: String(config.C), BENCH_BINARY_MODE: 'filesystem' });
		const rows: ScalingRow[] = [];
		for (const { n, sizes } of PLAN) {
			const count = config.quick ? Math.min(n, 300) : n;
			for (const size of sizes) {
				sized.reset();
				const executions = Array.from({ length: Math.ceil(count / 30) }, () => 30);
				const { result, rssPeak } = await w.run<NodesBatchResult>(
					{ kind: 'nodesBatch', sim: sized.ref, prefix: `scale ${count}`, suffix: sizeSuffix(size), executions, concurrent: true, cache: 'off', memory: { sampleMs: 20 }, loopDelay: true },
					{ sampleRssMs: 20 },
				);
				checkBatch(`scaling N=${count} ${size}`, result, count);
				const m = result.memory!;
				// Task creation order is the pool's FIFO order (the pool may have dropped collected jobs' records).
				const latencies = [...sized.sim.log.tasks.values()].map((task) => task.latencyMs);
				const row: ScalingRow = {
					n: count,
					executions: executions.length,
					size,
					wallMs: result.wallMs,
					idealMs: listScheduleMakespan(latencies, config.C),
					cpuMsPerJob: (result.cpu.user + result.cpu.system) / count,
					peakRss: Math.max(m.vmHwm ?? 0, m.peakSample.rss, rssPeak ?? 0),
					baselineRss: m.baseline.rss,
					retainedBytes: m.poolRetainedBytes,
					loopDelay: result.loopDelay,
					firstCollectorMs: Math.min(...result.executions.map((e) => e.wallMs)),
				};
				rows.push(row);
				log(`scaling N=${count} ${size}: wall ${s(row.wallMs)} (ideal ${s(row.idealMs)}), CPU/job ${ms(row.cpuMsPerJob, 1)}, peak RSS ${mib(row.peakRss)}, loop delay max ${ms(row.loopDelay?.maxMs ?? NaN, 1)}, eff ${fixed(row.idealMs / row.wallMs)}`);
			}
		}
		await w.close();
		return rows;
	} finally {
		await sized.sim.close();
	}
}
