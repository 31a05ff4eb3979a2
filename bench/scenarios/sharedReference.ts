/**
 * Scenario 7, a shared reference image: 30 items sharing one 8 MiB binary reference image through the submit
 * node, n8n's engine in a fresh worker (in-memory binary mode: the items share one base64 string). Peak
 * RSS growth over the baseline (taken with the reference already in memory) while the jobs run.
 */
import { startRelaySimulator } from '../../relay-sim';
import { checkBatch } from '../jobs';
import { log, mib } from '../format';
import type { NodesBatchResult } from '../protocol';
import type { Bench } from '../session';
import { memoryRow } from './memory';

export type SharedReference = ReturnType<typeof memoryRow<'default'>> & { referenceBytes: number; referenceRatio: number };

/** Goal: the 30 jobs together hold at most two copies' worth of the reference above the baseline. */
export const SHARED_REFERENCE_GOAL_RATIO = 2;

export async function runSharedReference(bench: Bench): Promise<SharedReference> {
	const { config } = bench;
	// small result images (8×8): the growth is the reference's copies, not the results
	const sim = await startRelaySimulator({ latencyMs: config.LATENCY, imageSize: { width: 8, height: 8 } });
	try {
		log(`shared reference: fresh worker, 30 items sharing one ${mib(config.REFERENCE_BYTES)} reference image …`);
		const w = await bench.startWorker('R-default', { COMFLY_IMAGE_CONCURRENCY: String(config.C), BENCH_BINARY_MODE: 'default' });
		const { result, rssPeak } = await w.run<NodesBatchResult>(
			{
				kind: 'nodesBatch',
				sim: { url: sim.url, apiKey: sim.apiKey },
				prefix: 'ref',
				executions: [30],
				concurrent: false,
				memory: { sampleMs: 10 },
				referenceImage: { bytes: config.REFERENCE_BYTES },
			},
			{ sampleRssMs: 10 },
		);
		checkBatch('shared reference', result, 30);
		await w.close();
		const row = memoryRow('default' as const, result, rssPeak);
		const referenceBytes = result.memory!.referenceBytes;
		log(`shared reference: peak RSS +${mib(row.growth)} = ${(row.growth / referenceBytes).toFixed(2)}× the reference`);
		return { ...row, referenceBytes, referenceRatio: row.growth / referenceBytes };
	} finally {
		await sim.close();
	}
}
