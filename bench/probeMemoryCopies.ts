/**
 * The two memory scenarios with open goals alone, for working on them: 7 (30 items sharing one 8 MiB reference image,
 * in-memory binary mode, after a first batch with a 64 KiB reference in the same worker) and 9 (ten 50 MiB clips, with the result store and with Cache Off). Prints each run's
 * peak RSS growth and, for 7, where it sits at the peak (V8 heap, external memory, ArrayBuffers) over the baseline.
 * `npx ts-node --transpile-only bench/probeMemoryCopies.ts [reference|video|both|warm] [repeats] [reference bytes]` (a small
 * reference, e.g. 65536, shows what the same run costs without a large image). Not part of `npm run bench`.
 */
import { startRelaySimulator } from '../relay-sim';
import { benchConfig, MB } from './config';
import { checkBatch } from './jobs';
import type { NodesBatchResult } from './protocol';
import { memoryRow } from './scenarios/memory';
import { fixed, mib } from './format';
import { runSharedReference } from './scenarios/sharedReference';
import { runVideo } from './scenarios/video';
import { openBench } from './session';

async function main(): Promise<void> {
	const which = process.argv[2] ?? 'both';
	const repeats = Number(process.argv[3] ?? '1');
	const config = benchConfig(false, { versions: 'off' });
	if (process.argv[4]) config.REFERENCE_BYTES = Number(process.argv[4]);
	const bench = await openBench(config);
	try {
		for (let i = 0; i < repeats; i++) {
			if (which === 'reference' || which === 'both') {
				const { m, growth, referenceBytes, referenceRatio, firstBatchGrowth } = await runSharedReference(bench);
				const over = (key: 'heapUsed' | 'heapTotal' | 'external' | 'arrayBuffers' | 'rss') => mib(m.peakSample[key] - m.baseline[key]);
				console.log(
					`shared reference: growth ${mib(growth)} = ${fixed(referenceRatio)}× the ${mib(referenceBytes)} reference; at the peak sample over the baseline: ` +
						`rss +${over('rss')}, V8 heap committed +${over('heapTotal')} (used +${over('heapUsed')}), external +${over('external')} (of which ArrayBuffers +${over('arrayBuffers')}); ` +
						`maxima heap ${mib(m.maxima.heapUsed - m.baseline.heapUsed)}, external ${mib(m.maxima.external - m.baseline.external)}, arrayBuffers ${mib(m.maxima.arrayBuffers - m.baseline.arrayBuffers)}; ` +
						`after the run ${mib(m.afterRun.rss - m.baseline.rss)}, after drop + gc ${mib(m.afterDropAndGc.rss - m.baseline.rss)}; the worker's first batch (64 KiB reference) +${mib(firstBatchGrowth)}`,
				);
			}
			if (which === 'warm') {
				// One worker: a batch with a 64 KiB reference first (the path's first run), then the measured one.
				const sim = await startRelaySimulator({ latencyMs: config.LATENCY, imageSize: { width: 8, height: 8 } });
				const w = await bench.startWorker('R-warm', { COMFLY_IMAGE_CONCURRENCY: String(config.C), BENCH_BINARY_MODE: 'default' });
				try {
					for (const bytes of [64 * 1024, config.REFERENCE_BYTES, config.REFERENCE_BYTES]) {
						const task = { kind: 'nodesBatch' as const, sim: { url: sim.url, apiKey: sim.apiKey }, prefix: `ref ${bytes}`, executions: [30], concurrent: false, memory: { sampleMs: 10 }, referenceImage: { bytes } };
						const { result, rssPeak } = await w.run<NodesBatchResult>(task, { sampleRssMs: 10 });
						checkBatch('shared reference (warm)', result, 30);
						const row = memoryRow('default', result, rssPeak);
						console.log(`same worker, reference ${mib(bytes)}: growth ${mib(row.growth)} = ${fixed(row.growth / bytes)}× the reference (${fixed(row.growth / (8 * MB))}× 8 MiB)`);
					}
				} finally {
					await w.close();
					await sim.close();
				}
			}
			if (which === 'video' || which === 'both') {
				const video = await runVideo(bench);
				for (const run of video.runs) console.log(`video, Cache ${run.cache}: growth ${mib(run.growth)} (baseline ${mib(run.baselineRss)}, peak ${mib(run.peakRss)}), wall ${fixed(run.wallMs / 1000)} s, all whole ${run.allSucceeded && run.allFullSize}`);
			}
		}
	} finally {
		await bench.close();
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
