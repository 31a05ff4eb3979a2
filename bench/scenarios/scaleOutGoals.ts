/** The goals of scenario 10 (scale-out): makespan of 1, 2, 4 processes under one shared limit, the lease cost, the adaptive ratio. */
import { fixed, ms, s } from '../format';
import type { BenchResults } from '../benchResults';
import type { Goal } from '../goal';

/** Adaptive goal: a pool wider than the account takes at most 10 % longer than one sized exactly to it. */
export const ADAPTIVE_RATIO_GOAL = 1.1;
/** Makespan efficiency goal of processes sharing one limit (one process: the pool alone). */
export const SHARED_EFFICIENCY_GOAL = 0.8;

export function scaleOutGoals(r: BenchResults): Goal[] {
	const { rows, lease, adaptive } = r.scaleOut;
	const goals: Goal[] = rows.map((row) => ({
		id: `10${'abc'[[1, 2, 4].indexOf(row.processes)] ?? '?'}`,
		goal: `Scale-out: ${row.processes} process(es) sharing one limit of ${row.limit} through Redis, ${row.jobs} jobs, L=${s(row.latencyMs)}`,
		measured: `${fixed(row.efficiency)} (wall ${s(row.wallMs)} vs ideal ${s(row.idealMs)}); peak active ${row.peakActive}, ${row.rejected} × 429, ${row.failed} failed`,
		target: `≥ ${SHARED_EFFICIENCY_GOAL}, peak ≤ ${row.limit}, 0 failed`,
		result: row.efficiency >= SHARED_EFFICIENCY_GOAL && row.peakActive <= row.limit && row.failed === 0 ? 'PASS' : 'MISS',
		why: 'per round: the poll detection lag (a lease is held until a poll sees Ready) plus the lease retry interval (25 ms) of waiters polling the semaphore; more processes, more waiters racing for each freed lease',
	}));
	goals.push({
		id: '10d',
		goal: 'Per-job cost of the shared lease (acquire + release, no contention)',
		measured: `${ms(lease.perJobMs, 2)} per job (${lease.jobs} jobs: ${ms(lease.withRedisMs)} with Redis vs ${ms(lease.withoutMs)} in process)`,
		target: 'INFO',
		result: 'INFO',
	});
	goals.push({
		id: '10e',
		goal: `Adaptive: account capped at ${adaptive.cap}, pool ${adaptive.pool}, ${adaptive.jobs} jobs vs a run configured at exactly ${adaptive.cap}`,
		measured: `${fixed(adaptive.ratio, 3)}× (${s(adaptive.adaptiveWallMs)} vs ${s(adaptive.exactWallMs)}); ${adaptive.rejected} × 429, ${adaptive.failed} failed`,
		target: `≤ ${ADAPTIVE_RATIO_GOAL}×, 0 failed`,
		result: adaptive.ratio <= ADAPTIVE_RATIO_GOAL && adaptive.failed === 0 ? 'PASS' : 'MISS',
		why: 'the first wave meets 20 refusals (30 submits at once); after it the limit sits at the 10 the account accepted and new submits wait for our own completions',
	});
	return goals;
}
