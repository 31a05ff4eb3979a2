/**
 * Where a 30-job batch's makespan goes beyond its slowest job, from what n8n, the pool and the simulator recorded
 * (no extra instrumentation): the critical path of the job that finished last, cut at the moments on record —
 * fired → Submit node starts (n8n before the submit node) → the job's worker starts (the submit node and the pool)
 * → the task exists upstream (the submit round trip) → it is Ready (its latency) → a poll sees it (detection lag)
 * → its download request arrives → the file is sent → the pool has the result (the client's work after the
 * download) → the collector ends (hand-over into n8n's binary store) → the caller has the answer (n8n after the
 * collector). The parts add up to the wall time; the excess over the slowest job is the parts other than the
 * latency minus how much faster than the slowest job the last one was (`slackMs`).
 */
import type { SimLog } from '../relay-sim';

/** One batch as recorded (epoch ms): the run's ends, two node runs, and each job's pool timings with its task. */
export interface BatchTimeline {
	/** The caller fired it (webhook POST sent, or the engine's runWorkflow called). */
	firedAt: number;
	/** The caller had the answer (the webhook's response read, or runWorkflow returned). */
	endedAt: number;
	submit: { startTime: number; executionTime: number };
	collect: { startTime: number; executionTime: number };
	jobs: ReadonlyArray<{ taskId?: string; startedAt?: number; finishedAt?: number }>;
}

/** The last-finishing job's path through the batch, ms. */
export interface CriticalPath {
	wallMs: number;
	/** The batch's slowest upstream latency (the goal's denominator). */
	slowestMs: number;
	/** wall / slowest. */
	ratio: number;
	/** fired → the Submit node starts. */
	beforeSubmitMs: number;
	/** The Submit node starts → the last job's worker starts (the node's own work until it hands that job over, and the pool). */
	submitNodeMs: number;
	/** The worker starts → the simulator creates the task (request built and sent, the first half of the round trip). */
	submitTripMs: number;
	/** The last job's own upstream latency. */
	latencyMs: number;
	/** Ready → the poll that saw it arrived at the simulator. */
	detectionLagMs: number;
	/** That poll arrived → the download request arrived (the poll's answer back, the client's turn). */
	pollToDownloadMs: number;
	/** The download request arrived → the simulator had written the whole file out (to the socket: the kernel took it). */
	downloadMs: number;
	/** The file written out → the pool has the job's result (the client reading what the socket still holds, hashing, storing). */
	afterDownloadMs: number;
	/** The last job finished → the Collect node ends (the last slots handed to n8n's binary store, the report). */
	handOverMs: number;
	/** The Collect node ends → the caller has the answer (n8n finishing and saving the execution, the HTTP answer). */
	afterCollectMs: number;
	/** The slowest job's latency minus the last job's (≥ 0: the last job's head start against the slowest). */
	slackMs: number;
	/** The Submit node's own executionTime (informational: it overlaps submitNodeMs). */
	submitExecutionMs: number;
	/** Mean over the batch's jobs. */
	pollsPerJob: number;
	meanDetectionLagMs: number;
	maxDetectionLagMs: number;
}

/** The parts of the excess over the slowest job, in path order (the names the tables print). */
export const EXCESS_PARTS = [
	['beforeSubmitMs', 'n8n before the submit node'],
	['submitNodeMs', 'submit node until the last job starts'],
	['submitTripMs', 'submit request until the task exists'],
	['detectionLagMs', 'detection lag (Ready → poll seen)'],
	['pollToDownloadMs', 'poll answer → download request'],
	['downloadMs', 'download sent (simulator side)'],
	['afterDownloadMs', 'download received, hashed, stored'],
	['handOverMs', 'collector hand-over into n8n'],
	['afterCollectMs', 'n8n after the collector'],
] as const satisfies ReadonlyArray<readonly [keyof CriticalPath, string]>;

const mean = (xs: number[]) => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);

/** The critical path of `batch`, joined with the simulator's log by task id. Throws when the log lacks the last job's task. */
export function criticalPath(batch: BatchTimeline, log: SimLog): CriticalPath {
	const jobs = batch.jobs.map((job) => ({ job, task: job.taskId ? log.tasks.get(job.taskId) : undefined }));
	const last = jobs.filter((j) => j.job.finishedAt !== undefined).sort((a, b) => b.job.finishedAt! - a.job.finishedAt!)[0];
	const reportedAt = last?.task?.reportedAt;
	if (!last?.task || last.job.startedAt === undefined || reportedAt === undefined) {
		throw new Error(`the last job to finish (task ${last?.job.taskId ?? 'none'}) is not in the simulator's log as reported Ready`);
	}
	const { task, job } = last;
	const readyAt = task.createdAt + task.latencyMs;
	const span = log.downloadSpans.get(job.taskId!);
	const spanAt = span?.at ?? reportedAt;
	const spanEnd = span?.finishedAt ?? spanAt;
	const collectEnd = batch.collect.startTime + batch.collect.executionTime;
	const slowestMs = Math.max(...jobs.map((j) => j.task?.latencyMs ?? NaN).filter(Number.isFinite));
	const wallMs = batch.endedAt - batch.firedAt;
	const lags = jobs.flatMap((j) => (j.task?.reportedAt === undefined ? [] : [j.task.reportedAt - (j.task.createdAt + j.task.latencyMs)]));
	return {
		wallMs,
		slowestMs,
		ratio: wallMs / slowestMs,
		beforeSubmitMs: batch.submit.startTime - batch.firedAt,
		submitNodeMs: job.startedAt! - batch.submit.startTime,
		submitTripMs: task.createdAt - job.startedAt!,
		latencyMs: task.latencyMs,
		detectionLagMs: reportedAt - readyAt,
		pollToDownloadMs: spanAt - reportedAt,
		downloadMs: spanEnd - spanAt,
		afterDownloadMs: job.finishedAt! - spanEnd,
		handOverMs: collectEnd - job.finishedAt!,
		afterCollectMs: batch.endedAt - collectEnd,
		slackMs: slowestMs - task.latencyMs,
		submitExecutionMs: batch.submit.executionTime,
		pollsPerJob: mean(jobs.map((j) => (j.job.taskId ? (log.pollsByTask.get(j.job.taskId) ?? 0) : NaN))),
		meanDetectionLagMs: mean(lags),
		maxDetectionLagMs: lags.length === 0 ? NaN : Math.max(...lags),
	};
}

/** The excess over the slowest job: the parts of the path other than the latency, less the slack. Equals wall − slowest. */
export function excessMs(path: CriticalPath): number {
	return EXCESS_PARTS.reduce((sum, [key]) => sum + path[key], 0) - path.slackMs;
}
