/**
 * `npm run bench [-- --quick] [--real-n8n=both|oldest|newest|off|<version>] [--real-runs=N]`: drives the package's
 * nodes through n8n-core's real WorkflowExecute (in process, via test/engine/harness.ts) and, for the real-n8n
 * and package-CPU scenarios, through a real `n8n start` of each asked version, against the relay simulator on
 * 127.0.0.1, prints a table of the measurements with PASS/MISS per goal, and writes bench/results.json (`--quick`: a
 * temp file).
 *
 * This process hosts the relay simulators; the nodes run in child processes (bench/worker.ts), one
 * per pool configuration / binary data mode, so that pool sizes (read once from the environment)
 * differ per child, and CPU and memory are measured on the n8n side alone. See bench/README.md.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { BENCH_USAGE, benchConfig, parseBenchArgs } from './config';
import { runRealN8n } from './scenarios/realN8n';
import { runPackageCpu } from './scenarios/packageCpu';
import { benchStart, log, s } from './format';
import { allGoals } from './goals';
import { printReport } from './report';
import { describeMachine, resultsJson, type BenchResults } from './benchResults';
import { runDirect300, runMakespan30, runPipeline300, runRounds300 } from './scenarios/makespan';
import { runMemory } from './scenarios/memory';
import { modelAllPolicies, runPollPolicies } from './scenarios/pollPolicies';
import { runRateLimits } from './scenarios/rateLimits';
import { runSharedReference } from './scenarios/sharedReference';
import { runSpeedup } from './scenarios/speedup';
import { runStore } from './scenarios/store';
import { runClaims } from './scenarios/claims';
import { runSubmitOverhead } from './scenarios/submitOverhead';
import { runComparison } from './scenarios/compare';
import { runScaling } from './scenarios/scaling';
import { comparisonSvg } from './chart';
import { DEFAULT_POLL_RATE } from '../src/config';
import { runVideo } from './scenarios/video';
import { runScaleOut } from './scenarios/scaleOut';
import { openBench } from './session';

async function main(): Promise<void> {
	const args = parseBenchArgs(process.argv.slice(2));
	if (args.help) {
		console.log(`usage: ${BENCH_USAGE}\nSee bench/README.md for the scenarios, their goals and the files a run writes.`);
		return;
	}
	const config = benchConfig(args.quick, { versions: args.realN8n, runs: args.realRuns });
	const machine = describeMachine();
	log(`machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryTotal}, Node ${machine.node}, ${machine.os}`);
	if (config.quick) log('--quick: latencies ÷ 10 and fewer repetitions; results go to a temp file, not bench/results.json');

	const bench = await openBench(config);
	try {
		// Worker A: C = 30 (the default pool), n8n 2.x's default binary data mode (filesystem).
		log(`starting worker A (COMFLY_IMAGE_CONCURRENCY=${config.C}, binary data mode filesystem) …`);
		const a = await bench.startWorker('A', { COMFLY_IMAGE_CONCURRENCY: String(config.C), BENCH_BINARY_MODE: 'filesystem' });
		log(`worker A ready in ${s(a.ready.loadMs)} (pool ${a.ready.pool.workers}+${a.ready.pool.pending}, n8n-core ${a.ready.n8nCore})`);

		const overhead = await runSubmitOverhead(bench, a); // 3, first, in the freshly warmed worker
		const n30 = await runMakespan30(bench, a); // 1
		const p300 = await runPipeline300(bench, a);
		const r300 = await runRounds300(bench, a);
		const direct = await runDirect300(bench, a);
		const speedup = await runSpeedup(bench, a, n30); // 2
		const policyRows = await runPollPolicies(bench, a); // 4
		const comparison = await runComparison(bench, a, DEFAULT_POLL_RATE); // 12
		const realN8n = await runRealN8n(bench); // real n8n (n8n start per version, beside a fresh engine worker)
		const packageCpu = await runPackageCpu(bench, realN8n); // the package's CPU per job under a profiler (after real n8n: its dist/ build)
		const rateLimits = await runRateLimits(bench, a); // 6 (closes A, starts and closes B)
		const memRows = await runMemory(bench); // 5 (fresh workers)
		const reference = await runSharedReference(bench); // 7 (fresh worker)
		const store = await runStore(bench); // 8 (fresh worker, its own store folder)
		const claims = await runClaims(bench); // claims (fresh workers, their own store folders)
		const scaling = await runScaling(bench); // 13 (fresh worker)
		const video = await runVideo(bench); // 9 (fresh worker, 10 clips of 50 MB)
		const scaleOut = await runScaleOut({ quick: config.quick, log }); // 10 (its own redis-server, simulators, processes)

		const results: BenchResults = {
			config,
			machine,
			workerA: a.ready,
			engines: bench.engines,
			notes: bench.notes,
			overhead,
			n30,
			p300,
			r300,
			direct,
			speedup,
			policyRows,
			modelRows: modelAllPolicies(config.MODEL_LATENCIES),
			rateLimits,
			memRows,
			reference,
			store,
			claims,
			comparison,
			scaling,
			video,
			scaleOut,
			realN8n,
			packageCpu,
		};
		const goals = allGoals(results);
		const totalMs = Date.now() - benchStart;
		printReport(results, goals, totalMs);
		const json = resultsJson(results, goals, totalMs);
		writeResults(json, config.quick);
		writeChart(comparisonSvg(comparison, String(json.generatedAt)), config.quick);
	} finally {
		await bench.close();
	}
}

function writeResults(json: Record<string, unknown>, quick: boolean): void {
	const out = quick ? path.join(os.tmpdir(), 'bench-results.quick.json') : path.join(__dirname, 'results.json');
	writeFileSync(out, JSON.stringify(json, null, 2) + '\n');
	console.log(`Results written to ${out}`);
}

function writeChart(svg: string, quick: boolean): void {
	const out = quick ? path.join(os.tmpdir(), 'bench-results.quick.svg') : path.join(__dirname, 'results.svg');
	writeFileSync(out, svg);
	console.log(`Chart written to ${out}`);
}

main().catch((error: unknown) => {
	console.error(`bench failed after ${((Date.now() - benchStart) / 1000).toFixed(0)} s:`, error);
	process.exitCode = 1;
});
