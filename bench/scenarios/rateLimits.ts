/**
 * Scenario 6, rate limits: the simulator caps active tasks at 24 (429 + Retry-After: 1); 100 jobs as
 * executions of 30+30+30+10 started together, at C = 30 (worker A, closed afterwards) and at C = 24 in
 * worker B.
 */
import { join, type JoinedJob } from '../jobs';
import { log, s } from '../format';
import type { NodesBatchResult } from '../protocol';
import type { Bench } from '../session';
import type { Worker } from '../workerProcess';

export interface RateLimitRun {
	result: NodesBatchResult;
	log: { rejected: number; peak: number; submits: number };
	jobs: JoinedJob[];
}

export interface RateLimits {
	rl30: RateLimitRun;
	rl24: RateLimitRun;
}

const HUNDRED = [30, 30, 30, 10];

export async function runRateLimits(bench: Bench, workerA: Worker): Promise<RateLimits> {
	const { sim } = bench;
	sim.reset();
	sim.setMaxActiveTasks(24);
	const rl30 = await hundredJobs(bench, workerA);
	await workerA.close();

	log('starting worker B (COMFLY_IMAGE_CONCURRENCY=24) …');
	const b = await bench.startWorker('B', { COMFLY_IMAGE_CONCURRENCY: '24', BENCH_BINARY_MODE: 'filesystem' });
	sim.reset();
	const rl24 = await hundredJobs(bench, b);
	sim.setMaxActiveTasks(undefined);
	await b.close();
	log(`rate limited: C=30 ${s(rl30.result.wallMs)} (${rl30.log.rejected} × 429), C=24 ${s(rl24.result.wallMs)} (${rl24.log.rejected} × 429)`);
	return { rl30, rl24 };
}

async function hundredJobs(bench: Bench, worker: Worker): Promise<RateLimitRun> {
	const { sim, simRef } = bench;
	const { result } = await worker.run<NodesBatchResult>({ kind: 'nodesBatch', sim: simRef, prefix: 'rl', executions: HUNDRED, concurrent: true });
	const counts = { rejected: sim.log.submits.filter((x) => x.status === 429).length, peak: sim.log.peakActiveTasks, submits: sim.log.submits.length };
	return { result, log: counts, jobs: join(result.jobs, sim.log) };
}
