/** Everything one benchmark run measured (BenchResults), and its bench/results.json form (named so: `./results` would resolve to results.json). */
import os from 'node:os';

import type { BenchConfig } from './config';
import type { VideoScenario } from './scenarios/video';
import { mib } from './format';
import { lagSummary, failedSlots, jobRows, pollsPerJob } from './jobs';
import { describePoll, POLICIES, pollWaitRule } from './policies';
import type { FromWorker } from './protocol';
import type { Goal } from './goal';
import type { DirectPipeline, Makespan30, Pipeline300, Rounds300 } from './scenarios/makespan';
import type { MemoryRow } from './scenarios/memory';
import type { ModelRows, PolicyRow } from './scenarios/pollPolicies';
import type { RateLimits } from './scenarios/rateLimits';
import type { SharedReference } from './scenarios/sharedReference';
import type { Speedup } from './scenarios/speedup';
import type { StoreScenario } from './scenarios/store';
import type { ClaimsScenario } from './scenarios/claims';
import type { ScaleOut } from './scenarios/scaleOut';
import type { SubmitOverhead } from './scenarios/submitOverhead';
import type { Comparison } from './scenarios/compare';
import type { ScalingRow } from './scenarios/scaling';
import type { RealN8nScenario } from './scenarios/realN8n';
import type { PackageCpuScenario } from './scenarios/packageCpu';
import { summarize } from './stats';

export type Machine = ReturnType<typeof describeMachine>;

/** "machine: <CPU>, <cores> cores, Node <version>; load average a / b / c": the line the standalone probes print first. */
export const machineLine = (m: Machine): string => `machine: ${m.cpuModel}, ${m.cores} cores, Node ${m.node}; load average ${m.loadAverageAtStart.map((x) => x.toFixed(2)).join(' / ')}`;

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
	store: StoreScenario;
	/** The claims scenario (bench/scenarios/claims.ts). */
	claims: ClaimsScenario;
	comparison: Comparison;
	scaling: ScalingRow[];
	/** Scenario 9 (bench/scenarios/video.ts). */
	video?: VideoScenario;
	/** Scenario 10 (bench/scenarios/scaleOut.ts). */
	scaleOut: ScaleOut;
	/** The real-n8n scenario (bench/scenarios/realN8n.ts); undefined with --real-n8n=off. */
	realN8n?: RealN8nScenario;
	/** The package's CPU per job under a profiler (bench/scenarios/packageCpu.ts); undefined with --real-n8n=off. */
	packageCpu?: PackageCpuScenario;
}

/** The object written to bench/results.json. */
export function resultsJson(r: BenchResults, goals: readonly Goal[], totalMs: number): Record<string, unknown> {
	return {
		generatedAt: new Date().toISOString(),
		benchWallMs: totalMs,
		machine: r.machine,
		engine: {
			driver: 'n8n-core WorkflowExecute, in process (test/engine/harness.ts loaded outside jest by bench/engine.ts), in child processes',
			n8nCore: r.workerA.n8nCore,
			binaryDataModes: { A: 'filesystem', B: 'filesystem', memory: ['filesystem', 'default (in-memory)'], sharedReference: 'default (in-memory)', store: 'filesystem' },
			workers: r.engines,
			simulator: 'relay-sim on 127.0.0.1, in the orchestrator process',
			realN8n: r.realN8n ? r.realN8n.servers : 'not run',
			alternativesDrivenBy: 'poll policies and the diagnostic N=300 rows: src/flux generateImage on an isolated WorkerPool (the nodes expose no poll policy)',
		},
		config: configJson(r.config),
		goals,
		scenarios: {
			makespan: makespanJson(r),
			speedup: speedupJson(r),
			submitOverhead: submitOverheadJson(r),
			pollPolicies: { measured: r.policyRows, model: r.modelRows },
			...(r.video ? { video: r.video } : {}),
			memory: Object.fromEntries(
				r.memRows.map(({ mode, m, peakRss, growth, ratio, rssPeakOutside, wallMs }) => [mode, { ...m, peakRss, growth, ratio, rssPeakOutside, wallMs }]),
			),
			rateLimits: rateLimitsJson(r),
			sharedReference: sharedReferenceJson(r),
			store: storeJson(r),
			claims: claimsJson(r),
			comparison: comparisonJson(r),
			scaling: r.scaling,
			scaleOut: r.scaleOut,
			...(r.realN8n ? { realN8n: realN8nJson(r.realN8n) } : {}),
			...(r.packageCpu ? { packageCpu: r.packageCpu } : {}),
		},
	};
}

/** The real-n8n scenario's form in results.json. */
export function realN8nJson(r: RealN8nScenario) {
	return {
		how:
			'the shapes of scenario 12 through a real `n8n start` per version (a scratch home, this package packed and installed as the Community Nodes UI does, filesystem binary data, ' +
			'Webhook (POST, answers when the last node finishes) → Split Out → Submit (Cache refresh) → Collect), fired by POST, beside n8n-core in process (a fresh bench worker) on the same simulators and prompts; ' +
			'per range one cold batch per driver, then `runs` batches per shape with the drivers taking turns. Each batch is the critical path of its last-finishing job (bench/makespanBreakdown.ts), ' +
			'from n8n\'s run data (startTime, executionTime), the collector\'s report (per-slot pool timings) and the simulator\'s log; medians per field.',
		...r,
	};
}

function configJson(config: BenchConfig) {
	const { C, LATENCY, L_MEAN, IMAGE_BYTES, REFERENCE_BYTES, STORE_IMAGE_BYTES, STORE_MISS_PAIRS, MODEL_LATENCIES, BFL_EXAMPLE_POLLS_PER_SECOND, quick, REAL_N8N } = config;
	return {
		C,
		latency: LATENCY,
		latencyMeanMs: L_MEAN,
		imageBytes: IMAGE_BYTES,
		policies: POLICIES.map((p) => ({ ...p, schedule: describePoll(p.poll), wait: pollWaitRule(p.poll) })),
		modelLatenciesMs: MODEL_LATENCIES,
		bflExamplePollsPerSecond: BFL_EXAMPLE_POLLS_PER_SECOND,
		referenceBytes: REFERENCE_BYTES,
		storeImageBytes: STORE_IMAGE_BYTES,
		storeMissPairs: STORE_MISS_PAIRS,
		realN8n: REAL_N8N,
		quick,
	};
}

function makespanJson(r: BenchResults) {
	const { runs30, j30, naive30, eff30, crit, lag30, all30Jobs } = r.n30;
	const { r300p, j300p, ideal300p, naive300, eff300p, lag300p, dec300p, peakActive300p } = r.p300;
	const { r300r, j300r, ideal300r, eff300r, rounds } = r.r300;
	return {
		n30: {
			how: `one execution trigger → submit (30) → collect, repeated ${r.config.REPEATS_30}×; the median run by wall time represents it`,
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
		n300Direct: r.direct.map((d) => ({
			policy: d.name,
			wallMs: d.wallMs,
			idealMs: d.ideal,
			efficiency: d.ideal / d.wallMs,
			lag: lagSummary(d.jobs),
			pollsPerJob: pollsPerJob(d.jobs),
			decomposition: d.decomposition,
			cpuMs: d.cpu,
		})),
	};
}

function speedupJson(r: BenchResults) {
	const { serial, serialPolls, sameLatencies, speedup, speedups, idealSpeedup } = r.speedup;
	return { serialWallMs: serial.wallMs, concurrentWallMs: r.n30.r30.wallMs, speedup, speedupPerRun: speedups, idealSpeedup, sameLatencies, serialPollsPerJob: serialPolls, serialCpu: serial.cpu };
}

function submitOverheadJson(r: BenchResults) {
	const { overhead, execMs, execCpuMs, cpuPerJob } = r.overhead;
	const { cpu } = r.p300.r300p;
	return {
		executeMs: summarize(execMs),
		executeCpuMs: summarize(execCpuMs),
		cpuPerJobMs: summarize(cpuPerJob),
		cpuPerJobAt2sMs: (cpu.user + cpu.system) / 300,
		reps: overhead.reps,
		warmup: overhead.warmup,
	};
}

function rateLimitsJson(r: BenchResults) {
	const row = ({ result, log, jobs }: RateLimits['rl30']) => ({
		wallMs: result.wallMs,
		failedSlots: failedSlots(result),
		...log,
		executions: result.executions,
		lag: lagSummary(jobs),
	});
	return { c30: row(r.rateLimits.rl30), c24: row(r.rateLimits.rl24) };
}

function sharedReferenceJson(r: BenchResults) {
	const { m, peakRss, growth, referenceRatio, rssPeakOutside, wallMs, firstBatchGrowth } = r.reference;
	return {
		how: '30 items (one execution, trigger → submit → collect) whose binary property `reference` is one shared base64 PNG, sent as the reference image; in-memory binary mode, in a worker that ran the same batch once with a 64 KiB reference (firstBatchGrowth: that batch\'s peak RSS growth)',
		...m,
		peakRss,
		growth,
		ratioToReference: referenceRatio,
		firstBatchGrowth,
		rssPeakOutside,
		wallMs,
	};
}

function storeJson(r: BenchResults) {
	const { imageBytes, rerun, miss } = r.store;
	return {
		how:
			'a fresh worker (filesystem binary mode) with its own store folder. Re-run: one execution of 30 (trigger → submit → collect) with Cache `reuse`, then the same 30 prompts again. ' +
			'Miss path: alternating fresh batches of 30 with Cache `reuse` (result written to the store and read back by the collector) and `off` (results neither read nor written; the journal is written either way); cost = (median reuse − median off) / median off',
		imageBytes,
		rerun,
		missPath: miss,
	};
}

function claimsJson(r: BenchResults) {
	return {
		how:
			'(a) a fresh worker with its own store folder: alternating fresh batches of 30 with Cache `reuse` (every job misses the store, claims its key, journals `submitting` durably, sends, stores), claims and journal on and off (the claim\'s acquire and release and the journal\'s reads and writes do nothing); cost = (median on − median off) / median off. ' +
			'(b) another fresh worker, COMFLY_STORE_MAX_MB small: batches of fresh jobs one after another (latency 0), the store folder measured after every batch (apparent bytes and bytes on disk), no prune forced from outside',
		...r.claims,
	};
}

function comparisonJson(r: BenchResults) {
	const { ranges, sizes, downloadMs, pollRate, rows, packageRows, coldRows } = r.comparison;
	const strip = ({ jobs, result, ...row }: (typeof packageRows)[number]) => ({ ...row, cpu: result.cpu, jobs: jobRows(jobs) });
	return {
		how:
			'the same 30 prompts (same seeded latencies) per range and image size through each approach; ratio = makespan / (slowest upstream latency + one download). ' +
			'Rows with timeScale 0.1 ran with every time ÷ 10 (latencies and fixed polls); this package ran after one warm-up batch per range (coldRows: that first batch).',
		ranges,
		sizes,
		oneDownloadMs: downloadMs,
		pollRatePerAccount: pollRate,
		rows,
		packageRows: packageRows.map(strip),
		coldRows: coldRows.map(strip),
	};
}
