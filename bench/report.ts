/** The benchmark's console report: header, goals table, then one table per scenario. */
import { failedSlots, lagSummary, latenciesInOrder, pollsPerJob, type JoinedJob } from './jobs';
import { duration, fixed, mib, ms, percent, s, table } from './format';
import type { Goal } from './goal';
import type { BenchResults } from './benchResults';
import type { StoreRun as StoreScenarioRun } from './scenarios/store';
import { listScheduleMakespan, max, median, p95 } from './stats';
import { realN8nReport } from './reportRealN8n';

export function printReport(r: BenchResults, goals: readonly Goal[], totalMs: number): void {
	printHeader(r, goals);
	printMakespan(r);
	printSpeedup(r);
	printOverhead(r);
	printPollPolicies(r);
	printMemory(r);
	printRateLimits(r);
	printSharedReference(r);
	printStore(r);
	printClaims(r);
	printComparison(r);
	printScaling(r);
	console.log('');
	console.log(r.realN8n ? realN8nReport(r.realN8n) : `Real n8n. Not run (--real-n8n=${r.config.REAL_N8N.asked})`);
	console.log('');
	console.log(`Whole benchmark: ${s(totalMs)}. Numbers vary by machine and load; see bench/README.md.`);
	for (const note of r.notes) console.log(`Note: ${note}`);
}

function printHeader(r: BenchResults, goals: readonly Goal[]): void {
	const { machine, workerA: a } = r;
	const { LATENCY, C } = r.config;
	console.log('');
	console.log(`n8n-nodes-flux-concurrent benchmark — ${new Date().toISOString()}`);
	console.log(`Machine: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryTotal} RAM, Node ${machine.node}, ${machine.os}`);
	console.log(
		`Engine: n8n-core ${a.n8nCore} WorkflowExecute, in process (test/engine/harness.ts) in child processes; relay simulator on 127.0.0.1 in the parent process`,
	);
	console.log(`Latency L: uniform ${LATENCY.min}–${LATENCY.max} ms per task (seeded by prompt). Pool C=${C} (+${a.pool.pending} pending).`);
	console.log('');
	console.log(table(['#', 'Goal', 'Measured', 'Target', 'Result'], goals.map((g) => [g.id, g.goal, g.measured, g.target, g.result])));
	const missed = goals.filter((g) => g.result === 'MISS');
	if (missed.length > 0) {
		console.log('');
		console.log('Missed goals, and why:');
		for (const g of missed) console.log(`  ${g.id}: ${g.why}`);
	}

}

function printMakespan(r: BenchResults): void {
	const { C, L_MEAN } = r.config;
	const { runs30 } = r.n30;
	const { r300p, j300p, ideal300p, dec300p } = r.p300;
	const { r300r, j300r, ideal300r } = r.r300;
	const directPipelines = r.direct;
	const dec300d = directPipelines.map((d) => d.decomposition);
	console.log('');
	console.log('1. Makespan (ideal = zero-overhead FIFO schedule of the actual seeded latencies on C workers)');
	const makespanRow = (name: string, n: number, wall: number, ideal: number, jobs: readonly JoinedJob[], cpuMs: number) => {
		const lag = lagSummary(jobs);
		return [name, n, s(wall), s(ideal), fixed(ideal / wall), fixed((Math.ceil(n / C) * L_MEAN) / wall), `${ms(lag.p50)} / ${ms(lag.p95)} / ${ms(lag.max)}`, fixed(pollsPerJob(jobs), 1), ms(cpuMs / n, 1)];
	};
	console.log(
		table(
			['Run', 'N', 'Wall', 'Ideal', 'Eff.', `Eff. vs ceil(N/C)·${duration(L_MEAN)}`, 'Lag p50 / p95 / max', 'Polls/job', 'CPU/job'],
			[
				...runs30.map((run, i) => makespanRow(`nodes: 1 submit → collect, run ${i + 1}`, 30, run.result.wallMs, run.ideal, run.jobs, run.result.cpu.user + run.result.cpu.system)),
				makespanRow('nodes: 10 executions at once', 300, r300p.wallMs, ideal300p, j300p, r300p.cpu.user + r300p.cpu.system),
				makespanRow('nodes: 10 rounds in sequence', 300, r300r.wallMs, ideal300r, j300r, r300r.cpu.user + r300r.cpu.system),
				...directPipelines.map((d) => makespanRow(`direct generateImage, ${d.name}`, 300, d.wallMs, d.ideal, d.jobs, d.cpu)),
			],
		),
	);
	console.log('   Where a job\'s time goes in the N=300 pipelines (means):');
	console.log(
		table(
			['Run', 'Queued', 'Submit RTT', 'Latency', 'Lag (incl. download)', 'Held by worker', 'Worker utilization'],
			[
				['nodes: 10 executions at once', dec300p, r300p.wallMs] as const,
				...directPipelines.map((d, i) => [`direct, ${d.name}`, dec300d[i], d.wallMs] as const),
			].map(([name, d]) => [name, ms(d.queuedMs), ms(d.submitMs), ms(d.latencyMs), ms(d.lagMs), ms(d.runMs), `${fixed(d.utilization * 100, 0)} %`]),
		),
	);
}

function printSpeedup(r: BenchResults): void {
	const { r30, j30 } = r.n30;
	const { serial, serialPolls, sameLatencies, speedup, speedups, idealSpeedup } = r.speedup;
	console.log('');
	console.log('2. Speedup (same 30 prompts, same seeded latencies' + (sameLatencies ? '' : ' — WARNING: latencies differed') + ')');
	console.log(
		table(
			['Run', 'Wall', 'Per job', 'Polls/job', 'CPU total'],
			[
				['serial FLUX 3 Image', s(serial.wallMs), s(serial.wallMs / 30), fixed(serialPolls, 1), ms(serial.cpu.user + serial.cpu.system)],
				['submit + collect (C=30), median run', s(r30.wallMs), '—', fixed(pollsPerJob(j30), 1), ms(r30.cpu.user + r30.cpu.system)],
			],
		),
	);
	console.log(`   speedup ${fixed(speedup, 1)}× (per run: ${speedups.map((x) => fixed(x, 1)).join(', ')}); zero-overhead ideal Σlatency / max latency = ${fixed(idealSpeedup, 1)}×`);
}

function printOverhead(r: BenchResults): void {
	const { overhead, execMs, execCpuMs, cpuPerJob } = r.overhead;
	const { r300p } = r.p300;
	console.log('');
	console.log(`3. Submit overhead (submit node execute(), 30 items, timed by a wrapper; ${overhead.reps.length} runs; pool drained between runs)`);
	const statRow = (name: string, values: number[], digits = 1) => [name, ms(median(values), digits), ms(p95(values), digits), ms(Math.min(...values), digits), ms(max(values), digits)];
	console.log(
		table(
			['Measure', 'Median', 'p95', 'Min', 'Max'],
			[
				statRow('submit execute() wall', execMs),
				statRow('submit execute() CPU', execCpuMs),
				statRow('n8n executionTime (Submit)', overhead.reps.map((r) => r.n8nExecutionTimeMs ?? NaN), 0),
				statRow('whole workflow run (engine + trigger + submit)', overhead.reps.map((r) => r.workflowMs)),
				statRow('CPU per job, submit → job done (L=50 ms)', cpuPerJob, 2),
			],
		),
	);
	console.log(`   warm-up runs (not counted): ${overhead.warmup.map((r) => ms(r.executeMs, 1)).join(', ')}`);
	console.log(`   CPU per job at L≈2 s through the nodes, incl. polling and the engine: ${ms((r300p.cpu.user + r300p.cpu.system) / 300, 2)} (N=300 pipeline)`);
}

function printPollPolicies(r: BenchResults): void {
	const { MODEL_LATENCIES, REPEATS_30, BFL_EXAMPLE_POLLS_PER_SECOND } = r.config;
	const { r30, all30Jobs, lag30, eff30 } = r.n30;
	const { policyRows, modelRows } = r;
	console.log('');
	console.log('4. Detection lag (Ready upstream = createdAt + latency → pool finishedAt, incl. the download) per poll policy; 30 jobs, C=30, generateImage direct');
	console.log(
		table(
			['Policy', 'Lag mean', 'Lag p50', 'Lag p95', 'Lag max', 'Polls/job', 'Wall', 'Efficiency', 'CPU/job'],
			[
				...policyRows.map((row) => [
					row.name,
					ms(row.lag.mean),
					ms(row.lag.p50),
					ms(row.lag.p95),
					ms(row.lag.max),
					fixed(row.polls, 1),
					s(row.wallMs),
					fixed(row.ideal / row.wallMs),
					ms(row.cpuMsPerJob, 1),
				]),
				[`(nodes, default policy, ${REPEATS_30}×30 jobs)`, ms(lag30.mean), ms(lag30.p50), ms(lag30.p95), ms(lag30.max), fixed(pollsPerJob(all30Jobs), 1), s(r30.wallMs), fixed(eff30), ms((r30.cpu.user + r30.cpu.system) / 30, 1)],
			],
		),
	);
	console.log(`   Model (schedule arithmetic with src/flux nextPollDelay, no I/O; latency L ± 5 %): mean lag / p95 lag / mean polls per job`);
	console.log(
		table(
			['Policy', ...MODEL_LATENCIES.map((latency) => `L = ${duration(latency)}`)],
			modelRows.map((row) => [row.name, ...row.rows.map((r) => `${ms(r.meanLagMs)} / ${ms(r.p95LagMs)} / ${fixed(r.meanPolls, 1)}`)]),
		),
	);
	console.log(`   Model: mean lag as a share of L / polls per second while polling (BFL's own examples: ${BFL_EXAMPLE_POLLS_PER_SECOND} polls/s)`);
	console.log(
		table(
			['Policy', ...MODEL_LATENCIES.map((latency) => `L = ${duration(latency)}`)],
			modelRows.map((row) => [row.name, ...row.rows.map((r) => `${percent(r.meanLagFraction)} / ${fixed(r.pollsPerSecond, 1)}/s`)]),
		),
	);
}

function printMemory(r: BenchResults): void {
	const { memRows } = r;
	console.log('');
	console.log('5. Memory (fresh worker per mode; baseline after gc; VmHWM reset before the run; RSS sampled every 10 ms inside and outside the worker)');
	console.log(
		table(
			['Binary mode', 'Payload', 'Baseline RSS', 'Peak RSS', 'Growth', '× payload', 'Heap @peak', 'External @peak', 'ArrayBuffers @peak', 'base64 in items', 'Pool retains', 'RSS after run', 'After drop+gc'],
			memRows.map(({ mode, m, peakRss, growth, ratio }) => [
				mode === 'default' ? 'in-memory (default)' : 'filesystem',
				mib(m.payloadBytes),
				mib(m.baseline.rss),
				mib(peakRss),
				mib(growth),
				fixed(ratio),
				mib(m.peakSample.heapUsed),
				mib(m.peakSample.external),
				mib(m.peakSample.arrayBuffers),
				mib(m.base64InItemsBytes),
				mib(m.poolRetainedBytes),
				mib(m.afterRun.rss),
				mib(m.afterDropAndGc.rss),
			]),
		),
	);
}

function printRateLimits(r: BenchResults): void {
	const { rl30: rl30Run, rl24: rl24Run } = r.rateLimits;
	const [rl30, rl30Log, rl30Jobs] = [rl30Run.result, rl30Run.log, rl30Run.jobs];
	const [rl24, rl24Log, rl24Jobs] = [rl24Run.result, rl24Run.log, rl24Run.jobs];
	console.log('');
	console.log('6. Rate limits (upstream: at most 24 active tasks, 429 + Retry-After: 1; 100 jobs as 4 executions 30+30+30+10 at once)');
	console.log(
		table(
			['Pool', 'Wall', 'Failed slots', '429 answers', 'Submit requests', 'Peak active upstream', 'Lag p50', 'Ideal (24 wide)'],
			[
				['C=30', s(rl30.wallMs), failedSlots(rl30), rl30Log.rejected, rl30Log.submits, rl30Log.peak, ms(lagSummary(rl30Jobs).p50), s(listScheduleMakespan(latenciesInOrder(rl30Jobs), 24))],
				['C=24', s(rl24.wallMs), failedSlots(rl24), rl24Log.rejected, rl24Log.submits, rl24Log.peak, ms(lagSummary(rl24Jobs).p50), s(listScheduleMakespan(latenciesInOrder(rl24Jobs), 24))],
			],
		),
	);
}

function printSharedReference(r: BenchResults): void {
	const { m, referenceBytes, peakRss, growth, referenceRatio } = r.reference;
	console.log('');
	console.log(`7. Shared reference image (fresh worker, in-memory binary mode; 30 items share one ${mib(referenceBytes)} PNG; sampled as in 5)`);
	console.log(
		table(
			['Reference', 'Baseline RSS', 'Peak RSS', 'Growth', '× reference', 'Heap @peak', 'External @peak', 'ArrayBuffers @peak', 'RSS after run', 'After drop+gc'],
			[
				[
					mib(referenceBytes),
					mib(m.baseline.rss),
					mib(peakRss),
					mib(growth),
					fixed(referenceRatio),
					mib(m.peakSample.heapUsed),
					mib(m.peakSample.external),
					mib(m.peakSample.arrayBuffers),
					mib(m.afterRun.rss),
					mib(m.afterDropAndGc.rss),
				],
			],
		),
	);
}

function printStore(r: BenchResults): void {
	const { imageBytes, rerun, miss } = r.store;
	const row = (label: string, run: StoreScenarioRun) => [label, s(run.wallMs), s(run.idealMs), run.submits, run.downloads, `${run.cached}/30`];
	console.log('');
	console.log(`8. Result store (fresh worker, its own store folder; ${mib(imageBytes)} images; one execution of 30 per row)`);
	console.log(
		table(
			['Run', 'Wall', 'Longest latency', 'Submits', 'Downloads', 'From store'],
			[
				row('first run, Cache reuse', rerun.first),
				row('re-run, Cache reuse', rerun.second),
				...miss.reuse.map((run, i) => row(`fresh ${i + 1}, Cache reuse`, run)),
				...miss.off.map((run, i) => row(`fresh ${i + 1}, Cache off`, run)),
			],
		),
	);
	console.log(
		`   Re-run: ${fixed(rerun.ratio)}× the first run, ${mib(rerun.bytesRead)} read from the store (folder ${mib(rerun.storeFolderBytes)}). ` +
			`Miss-path cost (median reuse − median off) / median off: ${fixed(miss.cost, 3)}.`,
	);
}

function printClaims(r: BenchResults): void {
	const { miss, bound } = r.claims;
	console.log('');
	console.log('Claims. One paid job, one owner (fresh workers, their own store folders)');
	console.log(
		table(
			['Run', 'Wall', 'Submits'],
			[...miss.on.map((run, i) => [`fresh ${i + 1}, claims on`, s(run.wallMs), run.submits]), ...miss.off.map((run, i) => [`fresh ${i + 1}, claims off`, s(run.wallMs), run.submits])],
		),
	);
	console.log(`   Claim cost (median on − median off) / median off: ${fixed(miss.cost, 3)}.`);
	console.log(
		`   Store folder under ${mib(bound.maxBytes)}: ${bound.batches} batches × ${bound.jobs / bound.batches} jobs (${mib(bound.writtenBytes)} of images written): ` +
			`peak ${mib(bound.peakBytes)} (${mib(bound.peakDiskBytes)} on disk), last ${mib(bound.lastBytes)} (${mib(bound.lastDiskBytes)} on disk), ${bound.failedSlots} failed.`,
	);
}

/** The side-by-side table (also in bench/README.md, as markdown): ratio to the physical limit and polls per job. */
export function comparisonMarkdown(r: BenchResults): string {
	const { rows, ranges, sizes } = r.comparison;
	const cols = (['short', 'long'] as const).flatMap((range) => sizes.map((size) => ({ range, size })));
	const rangeName = (range: 'short' | 'long') => `${fixed(ranges[range].min / 1000, 1)}–${fixed(ranges[range].max / 1000, 1)} s`;
	const header = ['Approach', ...cols.map((c) => `${rangeName(c.range)}, ${c.size.replace('m', ' MiB')}`)];
	const approaches = [...new Set(rows.map((row) => row.approach))];
	const body = approaches.map((approach) => [
		approach,
		...cols.map(({ range, size }) => {
			const row = rows.find((x) => x.approach === approach && x.range === range && x.size === size);
			if (!row) return '—';
			const star = row.timeScale !== 1 ? '*' : '';
			return `${fixed(row.ratio, 2)}×${star} (${s(row.wallMs / row.timeScale)}, ${fixed(row.pollsPerJob, 1)} polls/job)`;
		}),
	]);
	return table(header, body);
}

function printComparison(r: BenchResults): void {
	const { downloadMs, pollRate } = r.comparison;
	console.log('');
	console.log(`12. Side by side: the same 30 jobs, makespan / physical limit (slowest upstream latency + one download: ${Object.entries(downloadMs).map(([k, v]) => `${k} ${ms(v)}`).join(', ')})`);
	console.log(comparisonMarkdown(r));
	console.log(`   * with every time ÷ 10 (latencies and fixed polls), makespan shown ×10. Poll rate cap of this package: ${pollRate}/s per account.`);
	console.log(
		`   This package's first batch per range (nothing learned yet): ${r.comparison.coldRows.map((row) => `${row.range}: ${fixed(row.vsSlowest, 3)}× slowest, ${fixed(row.pollsPerJob, 1)} polls/job`).join('; ')}`,
	);
}

function printScaling(r: BenchResults): void {
	console.log('');
	console.log('13. Scaling (fresh worker, filesystem binary mode, Cache off, latency 0.4–0.6 s; executions of 30 started at once)');
	console.log(
		table(
			['N', 'Executions', 'Image', 'Wall', 'Ideal', 'Eff.', 'First collector', 'CPU/job', 'Peak RSS', 'Baseline RSS', 'Retained after', 'Loop delay max / p99'],
			r.scaling.map((row) => [
				row.n,
				row.executions,
				row.size.replace('m', ' MiB'),
				s(row.wallMs),
				s(row.idealMs),
				fixed(row.idealMs / row.wallMs),
				s(row.firstCollectorMs),
				ms(row.cpuMsPerJob, 1),
				mib(row.peakRss),
				mib(row.baselineRss),
				mib(row.retainedBytes),
				`${ms(row.loopDelay?.maxMs ?? NaN, 1)} / ${ms(row.loopDelay?.p99Ms ?? NaN, 1)}`,
			]),
		),
	);
}
