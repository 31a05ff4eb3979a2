/**
 * Scenario 4, polling policies: each driven through generateImage on an isolated 30-worker pool, and
 * each replayed by the schedule model (bench/model.ts, no I/O) at the model latencies.
 */
import { join, lagSummary, pollsPerJob } from '../jobs';
import { fixed, log, ms } from '../format';
import { modelPolicy, type ModelRow } from '../model';
import { forPolicy, POLICIES, type NamedPolicy } from '../policies';
import type { PollPolicy } from '../../src/flux';
import type { DirectResult } from '../protocol';
import type { Bench } from '../session';
import { max, type Summary } from '../stats';
import type { Worker } from '../workerProcess';

export interface PolicyRow {
	name: string;
	poll: PollPolicy;
	wallMs: number;
	ideal: number;
	lag: Summary;
	polls: number;
	cpuMsPerJob: number;
}

export interface ModelRows {
	name: string;
	rows: ModelRow[];
}

export async function runPollPolicies(bench: Bench, worker: Worker): Promise<PolicyRow[]> {
	const { sim, simRef, config } = bench;
	const policyRows: PolicyRow[] = [];
	for (const policy of POLICIES) {
		sim.reset();
		const { result: direct } = await worker.run<DirectResult>({ kind: 'direct', sim: simRef, prefix: 'job', count: 30, concurrency: config.C, poll: policy.poll });
		const jobs = join(direct.jobs, sim.log);
		const failed = jobs.filter((j) => j.state !== 'succeeded').length;
		if (failed > 0) throw new Error(`policy ${policy.name}: ${failed} jobs failed`);
		const row: PolicyRow = {
			name: policy.name,
			poll: policy.poll,
			wallMs: direct.wallMs,
			ideal: max(jobs.map((j) => j.latencyMs ?? NaN)),
			lag: lagSummary(jobs),
			polls: pollsPerJob(jobs),
			cpuMsPerJob: (direct.cpu.user + direct.cpu.system) / jobs.length,
		};
		policyRows.push(row);
		log(`policy ${policy.name}: lag p50 ${ms(row.lag.p50)}, max ${ms(row.lag.max)}, ${fixed(row.polls, 1)} polls/job`);
	}
	return policyRows;
}

/** The schedule model (no I/O): every policy at every model latency. */
export function modelAllPolicies(modelLatencies: readonly number[]): ModelRows[] {
	return POLICIES.map((policy) => ({ name: policy.name, rows: modelLatencies.map((latency) => modelPolicy(policy.poll, latency)) }));
}

export function modelAt(modelRows: readonly ModelRows[], policy: NamedPolicy, latency: number): ModelRow {
	return forPolicy(modelRows, policy).rows.find((r) => r.latencyMs === latency) ?? modelPolicy(policy.poll, latency);
}
