/**
 * The adaptive poll schedule on a fake clock: a simulated task (Ready after `latencyMs`, progress
 * = elapsed / latency rounded to a percent, like the relay simulator) is polled by the schedule alone;
 * no timer runs, time is the sum of the waits.
 */
import { mulberry32 } from '../../relay-sim/prng';
import {
	DEFAULT_ADAPTIVE_SCHEDULE,
	nextAdaptiveWait,
	progressEta,
	progressFraction,
	ReadyTimes,
	TaskTrack,
	type ScheduleInput,
} from '../../src/flux/pollSchedule';
import { DEFAULT_POLL_POLICY, nextPollDelay } from '../../src/flux/retryPolicy';

const KEY = 'http://127.0.0.1:1/v1/get_result';

function uniform(seed: number) {
	const next = mulberry32(seed);
	return () => next() / 0x1_0000_0000;
}

interface Simulated {
	polls: number;
	lagMs: number;
	waits: number[];
}

/** Polls one task with the schedule on a fake clock; the task reports progress unless `progress` is false. */
function simulate(latencyMs: number, options: { readyTimes?: ReadyTimes; progress?: boolean; random?: () => number } = {}): Simulated {
	const track = new TaskTrack();
	const random = options.random ?? (() => 0.5);
	const learned = options.readyTimes?.window(KEY, DEFAULT_ADAPTIVE_SCHEDULE.minSamples);
	let t = 0;
	const waits: number[] = [];
	for (let polls = 1; polls < 1000; polls++) {
		const wait = nextAdaptiveWait({
			elapsedMs: t,
			track,
			learned,
			settings: DEFAULT_ADAPTIVE_SCHEDULE,
			random,
			fallbackMs: () => (track.polls === 0 ? nextPollDelay(DEFAULT_POLL_POLICY, 0, 0, () => 0) : nextPollDelay(DEFAULT_POLL_POLICY, polls, t, () => 0)),
		});
		waits.push(wait);
		t += wait;
		if (t >= latencyMs) {
			options.readyTimes?.add(KEY, t);
			return { polls, lagMs: t - latencyMs, waits };
		}
		const progress = options.progress === false ? undefined : Math.round((t / latencyMs) * 100) / 100;
		track.see({ atMs: t, status: 'Pending', progress });
	}
	throw new Error('the schedule never reached the task');
}

/** A ReadyTimes that has seen `n` tasks of latencies uniform in [min, max]. */
function learnedTimes(min: number, max: number, n = 30): ReadyTimes {
	const times = new ReadyTimes();
	const random = uniform(7);
	for (let i = 0; i < n; i++) times.add(KEY, min + (max - min) * random());
	return times;
}

describe('progressFraction', () => {
	it.each([
		[0.45, 0.45],
		[45, 0.45],
		['45%', 0.45],
		['0.45', 0.45],
		[1, 1],
		[0, 0],
	])('%p → %p', (input, expected) => expect(progressFraction(input)).toBeCloseTo(expected));
	it.each([null, undefined, -1, 101, 'soon', NaN, {}])('%p → undefined', (input) => expect(progressFraction(input)).toBeUndefined());
});

describe('progressEta', () => {
	it('is the linear extrapolation of the progress readings', () => {
		const track = new TaskTrack();
		track.see({ atMs: 1000, status: 'Pending', progress: 0.25 });
		expect(progressEta(track)?.atMs).toBeCloseTo(4000);
		track.see({ atMs: 2000, status: 'Pending', progress: 0.5 });
		expect(progressEta(track)?.atMs).toBeCloseTo(4000);
	});
	it('forgets the readings of an earlier status (queued → running), measuring from the change', () => {
		const track = new TaskTrack();
		track.see({ atMs: 1000, status: 'Queued', progress: 0.1 });
		track.see({ atMs: 3000, status: 'Running', progress: 0.5 }); // running since ≈ 2 s
		expect(progressEta(track)?.atMs).toBeCloseTo(4000);
	});
	it('knows nothing without a progress between 0 and 1', () => {
		const track = new TaskTrack();
		track.see({ atMs: 1000, status: 'Pending' });
		track.see({ atMs: 2000, status: 'Pending', progress: 0 });
		expect(progressEta(track)).toBeUndefined();
	});
});

describe('nextAdaptiveWait on a fake clock', () => {
	it('cold (nothing learned): the first poll waits for the fallback, then progress takes over', () => {
		const run = simulate(20_000);
		expect(run.waits[0]).toBe(250);
		expect(run.polls).toBeLessThanOrEqual(8);
		expect(run.lagMs).toBeLessThanOrEqual(0.02 * 20_000);
	});

	it.each([
		[1500, 3500],
		[12_000, 20_000],
	])('with progress and learned times (%i–%i ms): ≤ 4 polls per job, lag ≤ 2 %% of the latency (+ 50 ms)', (min, max) => {
		const readyTimes = learnedTimes(min, max);
		const random = uniform(11);
		for (let i = 0; i < 200; i++) {
			const latency = min + (max - min) * random();
			const run = simulate(latency, { readyTimes, random });
			expect(run.polls).toBeLessThanOrEqual(4);
			expect(run.lagMs).toBeLessThanOrEqual(0.02 * latency + 50);
		}
	});

	it.each([
		[1500, 3500, 28, 60],
		[12_000, 20_000, 100, 300],
	])('with progress, learned times and no cap (%i–%i ms): the last poll aims at the expected finish (mean lag ≤ %i ms, each ≤ %i ms, ≤ 4 polls a job)', (min, max, meanLagMs, maxLagMs) => {
		// Aimed at the finish plus its error (the rule where finishes bunch under the cap), the same 200 jobs were seen
		// 25 / 132 ms late on average and at most 85 / 361 ms, at 2.0 / 2.1 polls a job; aimed at the finish, 24 / 79
		// and 50 / 270 ms at 2.5 / 2.6 polls a job.
		const readyTimes = learnedTimes(min, max);
		const random = uniform(11);
		const runs = Array.from({ length: 200 }, () => simulate(min + (max - min) * random(), { readyTimes, random }));
		expect(runs.reduce((sum, run) => sum + run.lagMs, 0) / runs.length).toBeLessThanOrEqual(meanLagMs);
		expect(Math.max(...runs.map((run) => run.lagMs))).toBeLessThanOrEqual(maxLagMs);
		expect(Math.max(...runs.map((run) => run.polls))).toBeLessThanOrEqual(4);
		expect(runs.reduce((sum, run) => sum + run.polls, 0) / runs.length).toBeLessThanOrEqual(3);
	});

	it.each([
		[1500, 3500],
		[12_000, 20_000],
	])('without progress, from learned times alone (%i–%i ms): ≤ 12 polls per job on average, lag of the slow half ≤ 3 %% of the slowest', (min, max) => {
		const readyTimes = learnedTimes(min, max);
		const random = uniform(5);
		const latencies = Array.from({ length: 200 }, () => min + (max - min) * random());
		const runs = latencies.map((latency) => simulate(latency, { readyTimes, progress: false, random }));
		const meanPolls = runs.reduce((sum, run) => sum + run.polls, 0) / runs.length;
		expect(meanPolls).toBeLessThanOrEqual(12);
		// The slow half sets the makespan: each of them is seen within 3 % of the slowest latency.
		runs.forEach((run, i) => latencies[i] >= (min + max) / 2 && expect(run.lagMs).toBeLessThanOrEqual(0.03 * max + 1));
		expect(runs.reduce((sum, run) => sum + run.lagMs, 0) / runs.length).toBeLessThanOrEqual(0.03 * max);
	});

	it('a first poll does not wait for nothing: with learned times it comes before the fastest job, not at a fixed delay', () => {
		const readyTimes = learnedTimes(12_000, 20_000);
		const first = simulate(16_000, { readyTimes }).waits[0];
		expect(first).toBeLessThan(12_000);
		expect(first).toBeGreaterThan(250);
	});

	it('jitter: 30 jobs submitted together do not poll in lock-step', () => {
		const readyTimes = learnedTimes(12_000, 20_000);
		const random = uniform(3);
		const firstWaits = Array.from({ length: 30 }, () => simulate(16_000, { readyTimes, random }).waits[0]);
		expect(new Set(firstWaits).size).toBeGreaterThan(20);
	});

	it('aims at the expected finish where the cap leaves room (or there is none), else just after it (finish + error)', () => {
		const wait = (atMs: number, input: Pick<ScheduleInput, 'learned' | 'account'>) => {
			const track = new TaskTrack();
			track.see({ atMs, status: 'Pending', progress: 0.5 }); // finishes at 2 × atMs, ± 1 % of it
			return nextAdaptiveWait({ elapsedMs: atMs, track, settings: DEFAULT_ADAPTIVE_SCHEDULE, random: () => 0, fallbackMs: () => 250, ...input });
		};
		const busy = { rate: 25, pollers: 30 };
		expect(wait(10_000, { learned: { lowMs: 12_000, highMs: 20_000 }, account: busy })).toBe(10_000); // 30 finish over 8 s: room
		expect(wait(1000, { learned: { lowMs: 1500, highMs: 3500 }, account: busy })).toBe(1020); // 30 finish over 2 s: no room
		expect(wait(1000, { account: busy })).toBe(1020); // nothing learned: the spread of the finishes is unknown
		expect(wait(1000, {})).toBe(1000); // no cap
		// Late in a batch of 1.5–3.5 s jobs the 13 still polling finish within the 0.9 s left, not across 2 s: no room.
		expect(wait(2600, { learned: { lowMs: 1500, highMs: 3500 }, account: { rate: 25, pollers: 13 } })).toBe(2652);
		expect(wait(2600, { learned: { lowMs: 1500, highMs: 3500 }, account: { rate: 25, pollers: 6 } })).toBe(2600);
	});

	it('a task later than its expected finish and its error is polled further apart the later it is (a progress stuck at 100 %)', () => {
		const track = new TaskTrack();
		track.see({ atMs: 1000, status: 'Pending', progress: 0.5 }); // finishes at 2000 ± 20
		const input = { track, settings: DEFAULT_ADAPTIVE_SCHEDULE, random: () => 0, fallbackMs: () => 250 };
		expect(nextAdaptiveWait({ ...input, elapsedMs: 2030 })).toBe(50); // just past it: dense
		expect(nextAdaptiveWait({ ...input, elapsedMs: 4020 })).toBe(1000); // 2 s late: half of that
		let t = 2000;
		let polls = 0;
		while (t < 30_000) {
			t += nextAdaptiveWait({ ...input, elapsedMs: t });
			polls++;
		}
		expect(polls).toBeLessThanOrEqual(20); // every 50 ms it would be 560
	});

	it('a progress that does not run linearly is re-read: no jump is longer than 3× the time elapsed', () => {
		const track = new TaskTrack();
		track.see({ atMs: 1000, status: 'Pending', progress: 0.01 }); // looks like a 100 s job
		const wait = nextAdaptiveWait({ elapsedMs: 1000, track, settings: DEFAULT_ADAPTIVE_SCHEDULE, random: () => 0, fallbackMs: () => 250 });
		expect(wait).toBe(3000);
	});

	it('stays within its bounds: never sooner than minWaitMs, never later than maxWaitMs', () => {
		const track = new TaskTrack();
		track.see({ atMs: 100_000, status: 'Pending', progress: 0.01 });
		const input = { track, settings: DEFAULT_ADAPTIVE_SCHEDULE, random: () => 0.5, fallbackMs: () => 0 };
		expect(nextAdaptiveWait({ ...input, elapsedMs: 100_000 })).toBe(DEFAULT_ADAPTIVE_SCHEDULE.maxWaitMs);
		expect(nextAdaptiveWait({ ...input, elapsedMs: 0, track: new TaskTrack() })).toBe(DEFAULT_ADAPTIVE_SCHEDULE.minWaitMs);
	});
});

describe('ReadyTimes', () => {
	it('needs minSamples observations, keeps the latest window, gives the 5 % / 95 % quantiles', () => {
		const times = new ReadyTimes(100);
		for (let i = 0; i < 4; i++) times.add(KEY, 1000);
		expect(times.window(KEY, 5)).toBeUndefined();
		for (let i = 0; i <= 100; i++) times.add(KEY, 1000 + i * 10);
		expect(times.window(KEY, 5)).toEqual({ lowMs: 1060, highMs: 1950 });
		expect(times.window('other', 5)).toBeUndefined();
	});
	it('ignores nonsense', () => {
		const times = new ReadyTimes();
		times.add(KEY, NaN);
		times.add(KEY, -5);
		expect(times.window(KEY, 1)).toBeUndefined();
	});
});
