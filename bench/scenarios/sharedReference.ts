/**
 * Scenario 7, a shared reference image: 30 items sharing one 8 MiB binary reference image through the submit
 * node, n8n's engine in a worker (in-memory binary mode: the items share one base64 string). Peak RSS growth over
 * the baseline (taken with the reference already in memory) while the jobs run, in a worker that has run the same
 * batch once with a 64 KiB reference: a new process's first batch costs about 40 MiB whatever the reference's size
 * (its first HTTP requests instantiate and compile undici's llhttp WebAssembly parser, n8n's engine warms up), which
 * a long-running n8n pays once, not per reference. That first batch's growth is reported beside it.
 */
import { startRelaySimulator } from '../../relay-sim';
import { checkBatch } from '../jobs';
import { log, mib } from '../format';
import type { NodesBatchResult, NodesBatchTask } from '../protocol';
import type { Bench } from '../session';
import { memoryRow } from './memory';

export type SharedReference = ReturnType<typeof memoryRow<'default'>> & {
	referenceBytes: number;
	referenceRatio: number;
	/** Peak RSS growth of the worker's first batch (the same 30 items with a 64 KiB reference): the new process's own cost. */
	firstBatchGrowth: number;
};

/** Goal: the 30 jobs together hold at most two copies' worth of the reference above the baseline. */
export const SHARED_REFERENCE_GOAL_RATIO = 2;

/** The reference of the worker's first batch: small, so its growth is the process's first-run cost. */
const FIRST_BATCH_REFERENCE_BYTES = 64 * 1024;

export async function runSharedReference(bench: Bench): Promise<SharedReference> {
	const { config } = bench;
	// small result images (8×8): the growth is the reference's copies, not the results
	const sim = await startRelaySimulator({ latencyMs: config.LATENCY, imageSize: { width: 8, height: 8 } });
	try {
		const w = await bench.startWorker('R-default', { COMFLY_IMAGE_CONCURRENCY: String(config.C), BENCH_BINARY_MODE: 'default' });
		const batch = async (prefix: string, bytes: number) => {
			const task: NodesBatchTask = {
				kind: 'nodesBatch',
				sim: { url: sim.url, apiKey: sim.apiKey },
				prefix,
				executions: [30],
				concurrent: false,
				memory: { sampleMs: 10 },
				referenceImage: { bytes },
			};
			const { result, rssPeak } = await w.run<NodesBatchResult>(task, { sampleRssMs: 10 });
			checkBatch('shared reference', result, 30);
			return memoryRow('default' as const, result, rssPeak);
		};
		log(`shared reference: new worker, first batch (30 items, a ${mib(FIRST_BATCH_REFERENCE_BYTES)} reference) …`);
		const first = await batch('ref first', FIRST_BATCH_REFERENCE_BYTES);
		log(`shared reference: first batch +${mib(first.growth)}; now 30 items sharing one ${mib(config.REFERENCE_BYTES)} reference image …`);
		const row = await batch('ref', config.REFERENCE_BYTES);
		await w.close();
		const referenceBytes = row.m.referenceBytes;
		log(`shared reference: peak RSS +${mib(row.growth)} = ${(row.growth / referenceBytes).toFixed(2)}× the reference`);
		return { ...row, referenceBytes, referenceRatio: row.growth / referenceBytes, firstBatchGrowth: first.growth };
	} finally {
		await sim.close();
	}
}
