/**
 * A quick look at scenario 3 alone (the submit node's execute() for 30 items, 3 warm-ups then REPS runs, median
 * over the runs), for working on performance: `npx ts-node --transpile-only bench/probeSubmit.ts [reps]`
 * (BENCH_WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" profiles the worker); `… probeSubmit.ts ref` runs
 * scenario 7 alone (30 items sharing one 8 MiB binary reference, peak RSS). Not part of `npm run bench`.
 */
import { benchConfig } from './config';
import { openBench } from './session';
import { runSharedReference } from './scenarios/sharedReference';
import { runSubmitOverhead } from './scenarios/submitOverhead';
import { median, p95 } from './stats';

async function main() {
	const config = benchConfig(false);
	if (process.argv[2] === 'ref') {
		const bench = await openBench(config);
		try {
			const row = await runSharedReference(bench);
			const { peakSample: peak, baseline } = row.m;
			const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
			console.log(
				`shared reference: peak RSS growth ${mb(row.growth)} = ${row.referenceRatio.toFixed(2)}× the reference; at the peak: heap +${mb(peak.heapUsed - baseline.heapUsed)}, external +${mb(peak.external - baseline.external)}, ArrayBuffers +${mb(peak.arrayBuffers - baseline.arrayBuffers)}`,
			);
		} finally {
			await bench.close();
		}
		return;
	}
	const reps = Number(process.argv[2] ?? 30);
	const bench = await openBench({ ...config, OVERHEAD_RUNS: { warmup: 3, reps } });
	try {
		const worker = await bench.startWorker('A', { COMFLY_IMAGE_CONCURRENCY: String(config.C) });
		const { execMs, execCpuMs } = await runSubmitOverhead(bench, worker);
		const min = Math.min(...execMs);
		console.log(
			`submit 30 items (${reps} runs): median ${median(execMs).toFixed(1)} ms, p95 ${p95(execMs).toFixed(1)} ms, min ${min.toFixed(1)} ms, CPU median ${median(execCpuMs).toFixed(1)} ms`,
		);
	} finally {
		await bench.close();
	}
}
main().catch((e) => {
	console.error(e);
	process.exit(1);
});
