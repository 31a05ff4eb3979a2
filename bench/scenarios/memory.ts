/** Scenario 5, memory: fresh workers, 30 images of 4 MiB, both binary data modes. */
import { startRelaySimulator } from '../../relay-sim';
import { checkBatch } from '../jobs';
import { log } from '../format';
import type { MemorySummary, NodesBatchResult } from '../protocol';
import type { Bench } from '../session';

export const MEMORY_MODES = ['filesystem', 'default'] as const;
export type MemoryMode = (typeof MEMORY_MODES)[number];

export interface MemoryRow {
	mode: MemoryMode;
	m: MemorySummary;
	peakRss: number;
	growth: number;
	ratio: number;
	rssPeakOutside?: number;
	wallMs: number;
}

export async function runMemory(bench: Bench): Promise<MemoryRow[]> {
	const { config } = bench;
	const memSim = await startRelaySimulator({ latencyMs: config.LATENCY, imageBytes: config.IMAGE_BYTES, imageSize: { width: 8, height: 8 } });
	const rows: MemoryRow[] = [];
	try {
		for (const mode of MEMORY_MODES) {
			log(`memory: fresh worker, binary data mode ${mode} …`);
			const w = await bench.startWorker(`M-${mode}`, { COMFLY_IMAGE_CONCURRENCY: String(config.C), BENCH_BINARY_MODE: mode });
			memSim.reset();
			const { result, rssPeak } = await w.run<NodesBatchResult>(
				{ kind: 'nodesBatch', sim: { url: memSim.url, apiKey: memSim.apiKey }, prefix: 'mem', executions: [30], concurrent: false, memory: { sampleMs: 10 } },
				{ sampleRssMs: 10 },
			);
			checkBatch(`memory ${mode}`, result, 30);
			// The payload is what the API served (the pool keeps only references to stored images, so it cannot say).
			result.memory!.payloadBytes = memSim.log.downloads * config.IMAGE_BYTES;
			rows.push(memoryRow(mode, result, rssPeak));
			await w.close();
		}
	} finally {
		await memSim.close();
	}
	return rows;
}

/** Peak RSS: the highest of VmHWM, the samples inside the worker and those taken from outside. */
export function memoryRow<M extends string>(mode: M, result: NodesBatchResult, rssPeakOutside: number | undefined) {
	const m = result.memory!;
	const peakRss = Math.max(m.vmHwm ?? 0, m.peakSample.rss, rssPeakOutside ?? 0);
	const growth = peakRss - m.baseline.rss;
	return { mode, m, peakRss, growth, ratio: growth / m.payloadBytes, rssPeakOutside, wallMs: result.wallMs };
}
