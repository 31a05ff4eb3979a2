/**
 * The benchmark's makespan breakdown (bench/makespanBreakdown.ts): a batch's critical path is cut at the recorded
 * moments of its last-finishing job, the parts add up to the wall time, and the excess over the slowest job is the
 * parts other than the latency less the last job's head start.
 */
import { createLog } from '../../relay-sim/log';
import { criticalPath, excessMs, EXCESS_PARTS, type BatchTimeline } from '../../bench/makespanBreakdown';
import { medianPath } from '../../bench/scenarios/realN8n';

const T0 = 1_700_000_000_000;

/** Two jobs: A (the slowest upstream, 3000 ms) finishes first; B (2900 ms, created later) finishes last. */
function twoJobs() {
	const log = createLog();
	log.tasks.set('task-a', { prompt: 'a', createdAt: T0 + 100, latencyMs: 3000, readyAt: T0 + 3100, reportedAt: T0 + 3150, finalStatus: 'Ready', style: 'relay' });
	log.tasks.set('task-b', { prompt: 'b', createdAt: T0 + 300, latencyMs: 2900, readyAt: T0 + 3200, reportedAt: T0 + 3500, finalStatus: 'Ready', style: 'relay' });
	log.pollsByTask.set('task-a', 2);
	log.pollsByTask.set('task-b', 4);
	log.downloadSpans.set('task-b', { at: T0 + 3520, finishedAt: T0 + 3600 });
	const batch: BatchTimeline = {
		firedAt: T0,
		endedAt: T0 + 3900,
		submit: { startTime: T0 + 40, executionTime: 30 },
		collect: { startTime: T0 + 80, executionTime: 3740 },
		jobs: [
			{ taskId: 'task-a', startedAt: T0 + 60, finishedAt: T0 + 3300 },
			{ taskId: 'task-b', startedAt: T0 + 200, finishedAt: T0 + 3700 },
		],
	};
	return { log, batch };
}

describe('criticalPath', () => {
	it('cuts the last-finishing job’s path at each recorded moment', () => {
		const { log, batch } = twoJobs();
		const p = criticalPath(batch, log);
		expect(p).toMatchObject({
			wallMs: 3900,
			slowestMs: 3000,
			beforeSubmitMs: 40,
			submitNodeMs: 160,
			submitTripMs: 100,
			latencyMs: 2900,
			detectionLagMs: 300,
			pollToDownloadMs: 20,
			downloadMs: 80,
			afterDownloadMs: 100,
			handOverMs: 120,
			afterCollectMs: 80,
			slackMs: 100,
			submitExecutionMs: 30,
			pollsPerJob: 3,
			meanDetectionLagMs: 175,
			maxDetectionLagMs: 300,
		});
		expect(p.ratio).toBeCloseTo(1.3, 10);
	});

	it('adds up: the parts and the latency make the wall time; the excess is wall − slowest', () => {
		const { log, batch } = twoJobs();
		const p = criticalPath(batch, log);
		const parts = EXCESS_PARTS.reduce((sum, [key]) => sum + p[key], 0);
		expect(parts + p.latencyMs).toBe(p.wallMs);
		expect(excessMs(p)).toBe(p.wallMs - p.slowestMs);
	});

	it('without a download span the download counts as after the Ready poll (nothing is lost from the sum)', () => {
		const { log, batch } = twoJobs();
		log.downloadSpans.clear();
		const p = criticalPath(batch, log);
		expect([p.pollToDownloadMs, p.downloadMs, p.afterDownloadMs]).toEqual([0, 0, 200]);
		expect(excessMs(p)).toBe(p.wallMs - p.slowestMs);
	});

	it('refuses a batch whose last job the simulator never reported Ready', () => {
		const { log, batch } = twoJobs();
		log.tasks.delete('task-b');
		expect(() => criticalPath(batch, log)).toThrow(/task-b/);
	});
});

describe('medianPath', () => {
	it('takes each field’s median on its own', () => {
		const { log, batch } = twoJobs();
		const p = criticalPath(batch, log);
		const slower = { ...p, wallMs: 5000, detectionLagMs: 900 };
		const faster = { ...p, wallMs: 3500, detectionLagMs: 100 };
		expect(medianPath([slower, p, faster])).toMatchObject({ wallMs: 3900, detectionLagMs: 300, latencyMs: 2900 });
	});
});
