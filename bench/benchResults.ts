/** Everything one benchmark run measured (BenchResults), and its bench/results.json form (named so: `./results` would resolve to results.json). */
import os from 'node:os';

import type { BenchConfig } from './config';
import { mib } from './format';
import { lagSummary, failedSlots, jobRows, pollsPerJob } from './jobs';
import { describePoll, POLICIES, pollWaitRule } from './policies';
import type { FromWorker } from './protocol';
import type { Goal } from './goals';
import type { DirectPipeline, Makespan30, Pipeline300, Rounds300 } from './scenarios/makespan';
import type { MemoryRow } from './scenarios/memory';
import type { ModelRows, PolicyRow } from './scenarios/pollPolicies';
import type { RateLimits } from './scenarios/rateLimits';
import type { SharedReference } from './scenarios/sharedReference';
import type { Speedup } from './scenarios/speedup';
import type { SubmitOverhead } from './scenarios/submitOverhead';
import { summarize } from './stats';

export type Machine = ReturnType<typeof describeMachine>;

export function describeMachine() {
	const cpus = os.cpus();
	return {
		cpuModel: cpus[0]?.model ?? 'unknown',
		cores: cpus.length,
		memoryTotalBytes: os.totalmem(),
		memoryTotal: mib(os.totalmem()),
		node: process.version,
		os: `${os.type()} ${os.release()} (${os.platform()}/${os.arch()})`,
		osVersion: typeof os.version === 'function' ? os.version() : undefined,
		loadAverageAtStart: os.loadavg(),
	};
}

export interface BenchResults {
	config: BenchConfig;
	machine: Machine;
	/** Worker A's ready message (n8n-core version, pool size). */
	workerA: Extract<FromWorker, { type: 'ready' }>;
	engines: Record<string, unknown>;
	notes: string[];
	overhead: SubmitOverhead;
	n30: Makespan30;
	p300: Pipeline300;
	r300: Rounds300;
	direct: DirectPipeline[];
	speedup: Speedup;
	policyRows: PolicyRow[];
	modelRows: ModelRows[];
	rateLimits: RateLimits;
	memRows: MemoryRow[];
	reference: SharedReference;
}

/** The object written to bench/results.json. */
export function resultsJson(r: BenchResults, goals: readonly Goal[], totalMs: number): Record<string, unknown> {
	const { machine, engines, workerA: a, policyRows, modelRows, memRows } = r;
	const { C, LATENCY, L_MEAN, IMAGE_BYTES, MODEL_LATENCIES, BFL_EXAMPLE_POLLS_PER_SECOND, REPEATS_30 } = r.config;
	const { runs30, j30, naive30, eff30, crit, lag30, all30Jobs } = r.n30;
	const { r300p, j300p, ideal300p, naive300, eff300p, lag300p, dec300p, peakActive300p } = r.p300;
	const { r300r, j300r, ideal300r, eff300r, rounds } = r.r300;
	const directPipelines = r.direct;
	const dec300d = directPipelines.map((d) => d.decomposition);
	const { serial, serialPolls, sameLatencies, speedup, speedups, idealSpeedup } = r.speedup;
	const r30 = r.n30.r30;
	const { overhead, execMs, execCpuMs, cpuPerJob } = r.overhead;
	const { rl30: rl30Run, rl24: rl24Run } = r.rateLimits;
	const [rl30, rl30Log] = [rl30Run.result, rl30Run.log];
	const [rl24, rl24Log] = [rl24Run.result, rl24Run.log];
	const [rl30Jobs, rl24Jobs] = [rl30Run.jobs, rl24Run.jobs];
	const json: Record<string, unknown> = {
		generatedAt: new Date().toISOString(),
		benchWallMs: totalMs,
		machine,
		engine: {
			driver: 'n8n-core WorkflowExecute, in process (test/engine/harness.ts loaded outside jest by bench/engine.ts), in child processes',
			n8nCore: a.n8nCore,
			binaryDataModes: { A: 'filesystem', B: 'filesystem', memory: ['filesystem', 'default (in-memory)'] },
			workers: engines,
			simulator: 'relay-sim on 127.0.0.1, in the orchestrator process',
			alternativesDrivenBy: 'poll policies and the diagnostic N=300 rows: src/flux generateImage on an isolated WorkerPool (the nodes expose no poll policy)',
		},
		config: {
			C,
			latency: LATENCY,
			latencyMeanMs: L_MEAN,
			imageBytes: IMAGE_BYTES,
			policies: POLICIES.map((p) => ({ ...p, schedule: describePoll(p.poll), wait: pollWaitRule(p.poll) })),
			modelLatenciesMs: MODEL_LATENCIES,
			bflExamplePollsPerSecond: BFL_EXAMPLE_POLLS_PER_SECOND,
		},
		goals,
		scenarios: {
			makespan: {
				n30: {
					how: `one execution trigger → submit (30) → collect, repeated ${REPEATS_30}×; the median run by wall time represents it`,
					runs: runs30.map((run) => ({ wallMs: run.result.wallMs, idealMs: run.ideal, efficiency: run.eff, cpu: run.result.cpu })),
					naiveIdealMs: naive30,
					efficiencyMedian: eff30,
					criticalPathOfMedianRun: crit,
					lag: lag30,
					pollsPerJob: pollsPerJob(all30Jobs),
					jobsOfMedianRun: jobRows(j30),
				},
				n300Pipeline: {
					how: '10 workflow executions (trigger → submit 30 → collect) started at once in one process, sharing the pool; submit nodes past the 60-slot gate wait there',
					wallMs: r300p.wallMs,
					idealMs: ideal300p,
					naiveIdealMs: naive300,
					efficiency: eff300p,
					lag: lag300p,
					decomposition: dec300p,
					pollsPerJob: pollsPerJob(j300p),
					cpu: r300p.cpu,
					peakActiveUpstream: peakActive300p,
					executions: r300p.executions,
					jobs: jobRows(j300p),
				},
				n300Rounds: {
					how: '10 workflow executions (trigger → submit 30 → collect) one after another',
					wallMs: r300r.wallMs,
					idealMs: ideal300r,
					naiveIdealMs: naive300,
					efficiency: eff300r,
					lag: lagSummary(j300r),
					pollsPerJob: pollsPerJob(j300r),
					cpu: r300r.cpu,
					rounds,
				},
				n300Direct: directPipelines.map((d, i) => ({
					policy: d.name,
					wallMs: d.wallMs,
					idealMs: d.ideal,
					efficiency: d.ideal / d.wallMs,
					lag: lagSummary(d.jobs),
					pollsPerJob: pollsPerJob(d.jobs),
					decomposition: dec300d[i],
					cpuMs: d.cpu,
				})),
			},
			speedup: { serialWallMs: serial.wallMs, concurrentWallMs: r30.wallMs, speedup, speedupPerRun: speedups, idealSpeedup, sameLatencies, serialPollsPerJob: serialPolls, serialCpu: serial.cpu },
			submitOverhead: {
				executeMs: summarize(execMs),
				executeCpuMs: summarize(execCpuMs),
				cpuPerJobMs: summarize(cpuPerJob),
				cpuPerJobAt2sMs: (r300p.cpu.user + r300p.cpu.system) / 300,
				reps: overhead.reps,
				warmup: overhead.warmup,
			},
			pollPolicies: { measured: policyRows, model: modelRows },
			memory: Object.fromEntries(
				memRows.map(({ mode, m, peakRss, growth, ratio, rssPeakOutside, wallMs }) => [mode, { ...m, peakRss, growth, ratio, rssPeakOutside, wallMs }]),
			),
			sharedReference: {
				how: '30 items (one execution, trigger → submit → collect) whose binary property `reference` is one shared base64 PNG, sent as the reference image; fresh worker, in-memory binary mode',
				...r.reference.m,
				peakRss: r.reference.peakRss,
				growth: r.reference.growth,
				ratioToReference: r.reference.referenceRatio,
				rssPeakOutside: r.reference.rssPeakOutside,
				wallMs: r.reference.wallMs,
			},
			rateLimits: {
				c30: { wallMs: rl30.wallMs, failedSlots: failedSlots(rl30), ...rl30Log, executions: rl30.executions, lag: lagSummary(rl30Jobs) },
				c24: { wallMs: rl24.wallMs, failedSlots: failedSlots(rl24), ...rl24Log, executions: rl24.executions, lag: lagSummary(rl24Jobs) },
			},
		},
	};
	return json;
}
