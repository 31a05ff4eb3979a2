/**
 * A quick look at scenario 1 alone (N = 30 three times, then N = 300 as 10 executions of 30 sharing the pool),
 * for working on polling: `npx ts-node --transpile-only bench/probeMakespan.ts [30,300]`. The worker's poll rate cap
 * is COMFLY_POLL_RATE from this environment (default 25). Prints efficiency, lag, polls/job, the peak polls in one
 * second at the simulator and the first collector's ratio to its slowest job. Not part of `npm run bench`.
 */
import { benchConfig } from './config';
import { fixed } from './format';
import { lagSummary, pollsPerJob, type JoinedJob } from './jobs';
import { runMakespan30, runPipeline300 } from './scenarios/makespan';
import { openBench } from './session';
import { peakPollsPerSecond } from './sizedSim';
import { max } from './stats';
import type { NodesBatchResult } from './protocol';

function line(name: string, eff: number, result: NodesBatchResult, jobs: JoinedJob[], pollTimes: readonly number[]): string {
	const lag = lagSummary(jobs);
	const peak = peakPollsPerSecond(pollTimes, result.startedAt, result.startedAt + result.wallMs);
	const ends = result.executions.map((execution, index) => ({ index, wallMs: execution.wallMs }));
	const first = [...ends].sort((a, b) => a.wallMs - b.wallMs)[0];
	const firstRatio = first.wallMs / max(jobs.filter((j) => (j.execution ?? 0) === first.index).map((j) => j.latencyMs ?? NaN));
	return `${name}: eff ${fixed(eff, 3)} wall ${result.wallMs} lag p50 ${lag.p50.toFixed(0)} p95 ${lag.p95.toFixed(0)} max ${lag.max.toFixed(0)} polls/job ${fixed(pollsPerJob(jobs), 2)} peak ${peak}/s first collector ${fixed(firstRatio, 2)}×`;
}

async function main() {
	const which = (process.argv[2] ?? '30,300').split(',');
	const bench = await openBench(benchConfig(false));
	try {
		const a = await bench.startWorker('A', { COMFLY_IMAGE_CONCURRENCY: '30', ...(process.env.COMFLY_POLL_RATE ? { COMFLY_POLL_RATE: process.env.COMFLY_POLL_RATE } : {}) });
		if (which.includes('30')) {
			const m = await runMakespan30(bench, a);
			for (const [i, run] of m.runs30.entries()) {
				console.log(line(`N=30 #${i + 1}`, run.eff, run.result, run.jobs, []));
				if (i < m.runs30.length - 1) continue; // the simulator's log holds the last run only
				const t0 = run.result.startedAt;
				const rows = [...run.jobs].sort((x, y) => (x.readyMs ?? 0) - (y.readyMs ?? 0));
				console.log(`  ready→seen→finished (ms from start, polls): ${rows.map((j) => `${((j.readyMs ?? 0) - t0).toFixed(0)}→${((bench.sim.log.tasks.get(j.taskId ?? '')?.reportedAt ?? 0) - t0).toFixed(0)}→${((j.finishedAt ?? 0) - t0).toFixed(0)}(${j.polls})`).join(' ')}`);
			}
			console.log(`N=30 median eff ${fixed(m.eff30, 3)}`);
		}
		if (which.includes('300')) {
			const p = await runPipeline300(bench, a);
			console.log(line('N=300 pipeline', p.eff300p, p.r300p, p.j300p, bench.sim.log.pollTimes));
			const byExecution = Array.from({ length: 10 }, (_, e) => lagSummary(p.j300p.filter((j) => j.execution === e)));
			console.log(`  lag by execution (mean/max): ${byExecution.map((l) => `${l.mean.toFixed(0)}/${l.max.toFixed(0)}`).join(' ')}`);
			console.log(`  collectors at ${p.r300p.executions.map((e) => (e.wallMs / 1000).toFixed(2)).join(' ')} s`);
			console.log(`  decomposition: run ${p.dec300p.runMs.toFixed(0)} ms = submit ${p.dec300p.submitMs.toFixed(0)} + latency ${p.dec300p.latencyMs.toFixed(0)} + lag ${p.dec300p.lagMs.toFixed(0)}; utilization ${fixed(p.dec300p.utilization, 2)}; peak active ${p.peakActive300p}`);
		}
	} finally {
		await bench.close();
	}
}
main().catch((e) => {
	console.error(e);
	process.exit(1);
});
