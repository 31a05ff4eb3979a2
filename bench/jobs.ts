/** Joining the pool's view of each job (worker) with the simulator's (this process), and what follows from it. */
import type { SimLog } from '../relay-sim';
import type { JobRecord, NodesBatchResult } from './protocol';
import { mean, summarize, type Summary } from './stats';

export interface JoinedJob extends JobRecord {
	latencyMs?: number;
	createdAt?: number;
	/** createdAt + latencyMs: the moment the task became Ready upstream. */
	readyMs?: number;
	/** finishedAt − readyMs: until the collector could hold the image. */
	lagMs?: number;
	polls?: number;
}

export function join(jobs: readonly JobRecord[], log: SimLog): JoinedJob[] {
	return jobs.map((job) => {
		const task = job.taskId ? log.tasks.get(job.taskId) : undefined;
		if (!task) return { ...job };
		const readyMs = task.createdAt + task.latencyMs;
		return {
			...job,
			latencyMs: task.latencyMs,
			createdAt: task.createdAt,
			readyMs,
			lagMs: job.finishedAt !== undefined ? job.finishedAt - readyMs : undefined,
			polls: log.pollsByTask.get(job.taskId!) ?? 0,
		};
	});
}

/** Latencies of the tasks in submission order (queuedAt, then job order). */
export function latenciesInOrder(jobs: readonly JoinedJob[]): number[] {
	return [...jobs]
		.map((job, index) => ({ job, index }))
		.sort((a, b) => a.job.queuedAt - b.job.queuedAt || a.index - b.index)
		.map(({ job }) => job.latencyMs ?? NaN);
}

export function lagSummary(jobs: readonly JoinedJob[]): Summary {
	return summarize(jobs.map((job) => job.lagMs ?? NaN).filter(Number.isFinite));
}

export function pollsPerJob(jobs: readonly JoinedJob[]): number {
	return mean(jobs.map((job) => job.polls ?? NaN));
}

/** Where a job's time goes (means, ms), and how busy the C workers were over the wall time. */
export interface Decomposition {
	queuedMs: number;
	submitMs: number;
	latencyMs: number;
	lagMs: number;
	runMs: number;
	utilization: number;
}

export function decompose(jobs: readonly JoinedJob[], wallMs: number, workers: number): Decomposition {
	const runs = jobs.map((j) => (j.finishedAt ?? NaN) - (j.startedAt ?? NaN));
	return {
		queuedMs: mean(jobs.map((j) => (j.startedAt ?? NaN) - j.queuedAt)),
		submitMs: mean(jobs.map((j) => (j.createdAt ?? NaN) - (j.startedAt ?? NaN))),
		latencyMs: mean(jobs.map((j) => j.latencyMs ?? NaN)),
		lagMs: mean(jobs.map((j) => j.lagMs ?? NaN)),
		runMs: mean(runs),
		utilization: runs.filter(Number.isFinite).reduce((x, y) => x + y, 0) / (workers * wallMs),
	};
}

/** Compact per-job rows for results.json (ms relative to the run's first queuedAt). */
export function jobRows(jobs: readonly JoinedJob[]) {
	const t0 = Math.min(...jobs.map((j) => j.queuedAt));
	const rel = (n?: number) => (n === undefined ? null : Math.round(n - t0));
	return jobs.map((j) => ({
		execution: j.execution ?? null,
		state: j.state,
		queued: rel(j.queuedAt),
		started: rel(j.startedAt),
		created: rel(j.createdAt),
		ready: rel(j.readyMs),
		finished: rel(j.finishedAt),
		latency: j.latencyMs === undefined ? null : Math.round(j.latencyMs),
		lag: j.lagMs === undefined ? null : Math.round(j.lagMs),
		polls: j.polls ?? null,
	}));
}

export function failedSlots(result: NodesBatchResult): number {
	let failed = 0;
	for (const execution of result.executions) {
		if (execution.status !== 'success') failed += execution.items;
		else failed += (execution.counts?.failed ?? 0) + (execution.counts?.cancelled ?? 0) + (execution.counts?.skipped_error ?? 0);
	}
	return failed;
}

export function checkBatch(name: string, result: NodesBatchResult, expectedJobs: number): void {
	const bad = result.executions.filter((execution) => execution.status !== 'success');
	if (bad.length > 0 || result.jobs.length !== expectedJobs) {
		throw new Error(
			`${name}: ${bad.length} execution(s) did not succeed (${bad.map((b) => b.error).join('; ')}), ${result.jobs.length}/${expectedJobs} jobs`,
		);
	}
}

