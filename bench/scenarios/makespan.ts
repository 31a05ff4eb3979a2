/**
 * Scenario 1, makespan efficiency (ideal / wall): N = 30 (one submit → collect execution, repeated),
 * N = 300 as 10 executions at once sharing the pool and as 10 rounds one after another, and the same
 * 300 jobs straight through generateImage (diagnostic: separates polling from engine cost).
 */
import { checkBatch, decompose, join, lagSummary, latenciesInOrder, type Decomposition, type JoinedJob } from '../jobs';
import { fixed, log, ms, s } from '../format';
import { POLICY_DEFAULT, POLICY_FIXED_100 } from '../policies';
import type { DirectResult, NodesBatchResult } from '../protocol';
import type { Bench } from '../session';
import { listScheduleMakespan, max, median, type Summary } from '../stats';
import type { Worker } from '../workerProcess';

export interface Run30 {
	result: NodesBatchResult;
	jobs: JoinedJob[];
	ideal: number;
	eff: number;
}

export interface Makespan30 {
	runs30: Run30[];
	/** The median run (by wall time) represents N = 30 in the tables. */
	r30: NodesBatchResult;
	j30: JoinedJob[];
	ideal30: number;
	naive30: number;
	all30Jobs: JoinedJob[];
	eff30s: number[];
	eff30: number;
	lag30: Summary;
	/** Critical path of the median run: start → last job's task created → Ready → job finished → run end. */
	crit: { startToCreatedMs: number; latencyMs: number; lagMs: number; tailMs: number };
}

/** N = 30, REPEATS_30 times (same prompts, same seeded latencies; only the poll jitter and the machine differ). */
export async function runMakespan30(bench: Bench, worker: Worker): Promise<Makespan30> {
	const { sim, simRef, config } = bench;
	const runs30: Run30[] = [];
	for (let rep = 0; rep < config.REPEATS_30; rep++) {
		sim.reset();
		const { result } = await worker.run<NodesBatchResult>({ kind: 'nodesBatch', sim: simRef, prefix: 'job', executions: [30], concurrent: false });
		checkBatch('N=30', result, 30);
		const jobs = join(result.jobs, sim.log);
		const ideal = max(jobs.map((j) => j.latencyMs ?? NaN));
		runs30.push({ result, jobs, ideal, eff: ideal / result.wallMs });
		log(`N=30 #${rep + 1}: wall ${s(result.wallMs)}, ideal ${s(ideal)} → efficiency ${fixed(ideal / result.wallMs)}, max lag ${ms(max(jobs.map((j) => j.lagMs ?? NaN)))}`);
	}
	const mid30 = [...runs30].sort((x, y) => x.result.wallMs - y.result.wallMs)[Math.floor(config.REPEATS_30 / 2)];
	const r30 = mid30.result;
	const j30 = mid30.jobs;
	const all30Jobs = runs30.flatMap((run) => run.jobs);
	const eff30s = runs30.map((run) => run.eff);
	const last30 = [...j30].sort((x, y) => (y.finishedAt ?? 0) - (x.finishedAt ?? 0))[0];
	return {
		runs30,
		r30,
		j30,
		ideal30: mid30.ideal,
		naive30: Math.ceil(30 / config.C) * config.L_MEAN,
		all30Jobs,
		eff30s,
		eff30: median(eff30s),
		lag30: lagSummary(all30Jobs),
		crit: {
			startToCreatedMs: (last30.createdAt ?? NaN) - r30.startedAt,
			latencyMs: last30.latencyMs ?? NaN,
			lagMs: last30.lagMs ?? NaN,
			tailMs: r30.startedAt + r30.wallMs - (last30.finishedAt ?? NaN),
		},
	};
}

export interface Pipeline300 {
	r300p: NodesBatchResult;
	j300p: JoinedJob[];
	ideal300p: number;
	naive300: number;
	eff300p: number;
	lag300p: Summary;
	dec300p: Decomposition;
	peakActive300p: number;
}

/** Ten executions started together, sharing the pool (through the capacity gate: 60 admitted, the rest wait). */
export async function runPipeline300(bench: Bench, worker: Worker): Promise<Pipeline300> {
	const { sim, simRef, config } = bench;
	sim.reset();
	const { result: r300p } = await worker.run<NodesBatchResult>({ kind: 'nodesBatch', sim: simRef, prefix: 'pipe', executions: TENS, concurrent: true });
	checkBatch('N=300 pipeline', r300p, 300);
	const j300p = join(r300p.jobs, sim.log);
	const ideal300p = listScheduleMakespan(latenciesInOrder(j300p), config.C);
	log(`N=300 pipeline: wall ${s(r300p.wallMs)}, ideal ${s(ideal300p)} → efficiency ${fixed(ideal300p / r300p.wallMs)}`);
	return {
		r300p,
		j300p,
		ideal300p,
		naive300: Math.ceil(300 / config.C) * config.L_MEAN,
		eff300p: ideal300p / r300p.wallMs,
		lag300p: lagSummary(j300p),
		dec300p: decompose(j300p, r300p.wallMs, config.C),
		peakActive300p: sim.log.peakActiveTasks,
	};
}

const TENS = Array.from({ length: 10 }, () => 30);

export interface Rounds300 {
	r300r: NodesBatchResult;
	j300r: JoinedJob[];
	rounds: Array<{ wallMs: number; idealMs: number; minLatencyMs: number; maxLagMs: number }>;
	ideal300r: number;
	eff300r: number;
}

/** Ten submit → collect rounds, one after another (Loop Over Items-like). */
export async function runRounds300(bench: Bench, worker: Worker): Promise<Rounds300> {
	const { sim, simRef } = bench;
	sim.reset();
	const { result: r300r } = await worker.run<NodesBatchResult>({ kind: 'nodesBatch', sim: simRef, prefix: 'round', executions: TENS, concurrent: false });
	checkBatch('N=300 rounds', r300r, 300);
	const j300r = join(r300r.jobs, sim.log);
	const rounds = [...Array(10).keys()].map((round) => {
		const jobs = j300r.filter((j) => j.execution === round);
		return {
			wallMs: r300r.executions[round].wallMs,
			idealMs: max(jobs.map((j) => j.latencyMs ?? NaN)),
			minLatencyMs: Math.min(...jobs.map((j) => j.latencyMs ?? Infinity)),
			maxLagMs: max(jobs.map((j) => j.lagMs ?? NaN)),
		};
	});
	const ideal300r = rounds.reduce((sum, round) => sum + round.idealMs, 0);
	log(`N=300 rounds: wall ${s(r300r.wallMs)}, ideal ${s(ideal300r)} → efficiency ${fixed(ideal300r / r300r.wallMs)}`);
	return { r300r, j300r, rounds, ideal300r, eff300r: ideal300r / r300r.wallMs };
}

export interface DirectPipeline {
	name: string;
	wallMs: number;
	ideal: number;
	jobs: JoinedJob[];
	cpu: number;
	decomposition: Decomposition;
}

/** The name of the diagnostic row: the default poll without the account's poll rate cap. */
export const UNCAPPED = `${POLICY_DEFAULT.name}, no poll rate cap`;

/** The same 300 jobs through generateImage on a 30+30 pool (no n8n): the default poll, a fast fixed poll, and the default without the poll rate cap. */
export async function runDirect300(bench: Bench, worker: Worker): Promise<DirectPipeline[]> {
	const { sim, simRef, config } = bench;
	const directPipelines: DirectPipeline[] = [];
	const runs = [
		{ name: POLICY_DEFAULT.name, poll: POLICY_DEFAULT.poll, pollCap: true },
		{ name: POLICY_FIXED_100.name, poll: POLICY_FIXED_100.poll, pollCap: true },
		{ name: UNCAPPED, poll: POLICY_DEFAULT.poll, pollCap: false },
	];
	for (const policy of runs) {
		sim.reset();
		const { result } = await worker.run<DirectResult>({ kind: 'direct', sim: simRef, prefix: 'pipe', count: 300, concurrency: config.C, poll: policy.poll, ...(policy.pollCap ? {} : { pollCap: false }) });
		const jobs = join(result.jobs, sim.log);
		if (jobs.some((j) => j.state !== 'succeeded')) throw new Error(`direct N=300 ${policy.name}: failed jobs`);
		directPipelines.push({
			name: policy.name,
			wallMs: result.wallMs,
			ideal: listScheduleMakespan(latenciesInOrder(jobs), config.C),
			jobs,
			cpu: result.cpu.user + result.cpu.system,
			decomposition: decompose(jobs, result.wallMs, config.C),
		});
		log(`direct N=300, ${policy.name}: wall ${s(result.wallMs)} → efficiency ${fixed(directPipelines.at(-1)!.ideal / result.wallMs)}`);
	}
	return directPipelines;
}
