/**
 * The learned time-to-ready estimate (src/flux/poll.ts readyTimeOf / ReadyTimes.censored, src/flux/pollSchedule.ts
 * ReadyTimes.window), and the first poll it leads to, on a fake clock: tasks Ready after a known latency with a progress
 * rounded to a percent (like the relay simulator) are polled by the schedule alone; what is learned is compared with
 * the true latencies. No timer runs: time is the sum of the waits.
 */
import { mulberry32 } from '../../relay-sim/prng';
import { readyTimeOf } from '../../src/flux/poll';
import { DEFAULT_ADAPTIVE_SCHEDULE, nextAdaptiveWait, progressEta, ReadyTimes, TaskTrack, type ScheduleInput } from '../../src/flux/pollSchedule';

const KEY = 'http://127.0.0.1:1/v1/flux-3-image';

function uniform(seed: number) {
	const next = mulberry32(seed);
	return () => next() / 0x1_0000_0000;
}

/**
 * Polls one task (Ready `latencyMs` after it was created, `originMs` before polling began) the way pollUntilReady does,
 * and learns its time to Ready the way pollUntilReady does. Returns the polls and the first wait.
 */
function pollAndLearn(latencyMs: number, readyTimes: ReadyTimes, random: () => number, account?: ScheduleInput['account'], originMs = 0, originErrorMs = 0) {
	const track = new TaskTrack(originMs ? { atMs: -originMs, errorMs: originErrorMs } : undefined);
	const learned = readyTimes.window(KEY, DEFAULT_ADAPTIVE_SCHEDULE.minSamples);
	const readyAt = latencyMs - originMs; // ms after polling began
	let t = 0;
	let firstWait = NaN;
	for (let polls = 1; polls < 1000; polls++) {
		const wait = nextAdaptiveWait({ elapsedMs: t, track, learned, account, settings: DEFAULT_ADAPTIVE_SCHEDULE, random, fallbackMs: () => 250 });
		if (polls === 1) firstWait = wait;
		t += wait;
		if (t >= readyAt) {
			readyTimes.add(KEY, track.polls === 0 ? readyTimes.censored(KEY, t, random) : readyTimeOf(track, t));
			return { polls, firstWait, lagMs: t - readyAt };
		}
		track.see({ atMs: t, status: 'Pending', progress: Math.round(((t + originMs) / latencyMs) * 100) / 100 });
	}
	throw new Error('the schedule never reached the task');
}

describe('readyTimeOf: when a task became Ready, from its own polls', () => {
	it('the progress’s expected finish when it falls between the last pending poll and the one that saw Ready', () => {
		const track = new TaskTrack();
		track.see({ atMs: 1000, status: 'Pending', progress: 0.5 }); // finishes at 2000
		expect(readyTimeOf(track, 2100)).toBeCloseTo(2000);
	});

	it('the Ready poll when it was sent just before the expected finish (within its error), not the midpoint', () => {
		const track = new TaskTrack();
		track.see({ atMs: 1000, status: 'Pending', progress: 0.45 }); // finishes at 2222.2 ± 24.7
		expect(readyTimeOf(track, 2222)).toBe(2222); // the midpoint would be 1611
		expect(readyTimeOf(track, 2150)).toBe(1575); // 72 ms before it: farther than its error, the midpoint
	});

	it('else the midpoint of those two polls', () => {
		const track = new TaskTrack();
		track.see({ atMs: 1000, status: 'Pending' });
		expect(readyTimeOf(track, 3000)).toBe(2000);
	});
});

describe('ReadyTimes.censored: a task seen Ready at its first poll', () => {
	it('is one of the learned times up to when it was seen (not the time it was seen)', () => {
		const times = new ReadyTimes();
		for (const ms of [1900, 1950, 2000, 2050, 2100]) times.add(KEY, ms);
		const draws = new Set(Array.from({ length: 50 }, (_, i) => times.censored(KEY, 2010, () => i / 50)));
		expect([...draws].sort()).toEqual([1900, 1950, 2000]);
	});

	it('is the time it was seen when nothing learned is that early', () => {
		const times = new ReadyTimes();
		times.add(KEY, 3000);
		expect(times.censored(KEY, 2500, () => 0.5)).toBe(2500);
		expect(times.censored('other', 2500, () => 0.5)).toBe(2500);
	});
});

describe('the learned estimate follows the true times to Ready', () => {
	it.each([
		['uncapped (first poll at the middle)', undefined],
		['the cap saturated (first poll at the high quantile, a tenth probe)', { rate: 25, pollers: 30 }],
	])('latencies 1.9–2.1 s, %s: after 300 jobs the 5 % / 95 % quantiles are within 2.5 % (50 ms) of the truth', (_name, account) => {
		const random = uniform(21);
		const times = new ReadyTimes();
		// Seeded from a first, cold batch whose times came out wide and late (1.8–2.6 s): it must not stick.
		for (let i = 0; i < 30; i++) times.add(KEY, 1800 + 800 * random());
		for (let i = 0; i < 300; i++) pollAndLearn(1900 + 200 * random(), times, random, account);
		const window = times.window(KEY, DEFAULT_ADAPTIVE_SCHEDULE.minSamples)!;
		expect(Math.abs(window.lowMs - 1910)).toBeLessThanOrEqual(50);
		expect(Math.abs(window.highMs - 2090)).toBeLessThanOrEqual(50);
	});

	it('a model that got faster (3 s → 2 s) is followed, even with the cap saturated', () => {
		const random = uniform(5);
		const times = new ReadyTimes();
		for (let i = 0; i < 64; i++) times.add(KEY, 2900 + 200 * random());
		for (let i = 0; i < 600; i++) pollAndLearn(1900 + 200 * random(), times, random, { rate: 25, pollers: 30 });
		expect(times.window(KEY, 5)!.highMs).toBeLessThan(2300);
	});
});

describe('the first poll with learned times', () => {
	const narrow = () => {
		const times = new ReadyTimes();
		for (let i = 0; i < 20; i++) times.add(KEY, 1900 + 10 * i); // 1900–2090
		return times;
	};

	it('narrow times, room under the cap: the middle of the learned times', () => {
		expect(pollAndLearn(2000, narrow(), () => 0.5, { rate: 25, pollers: 5 }).firstWait).toBe(1995);
	});

	it('narrow times, more jobs polling than the cap serves at 1.5 polls each: the high quantile, one poll', () => {
		const run = pollAndLearn(2000, narrow(), () => 0.5, { rate: 25, pollers: 30 });
		expect(run.firstWait).toBe(2080);
		expect(run.polls).toBe(1);
	});

	it('narrow times, cap saturated: a tenth of the jobs still probe early (their progress keeps the estimate true)', () => {
		expect(pollAndLearn(2000, narrow(), () => 0.05, { rate: 25, pollers: 30 }).firstWait).toBeLessThan(1200);
	});

	it('wide times (1.5–3.5 s): an early probe whatever the load, then a poll just after the expected finish', () => {
		const times = new ReadyTimes();
		for (let i = 0; i < 20; i++) times.add(KEY, 1500 + 100 * i);
		const run = pollAndLearn(3400, times, () => 0.5, { rate: 25, pollers: 30 });
		expect(run.firstWait).toBeLessThan(1500);
		expect(run.polls).toBeLessThanOrEqual(3);
		expect(run.lagMs).toBeLessThanOrEqual(100);
	});
});

describe('wide learned times under the poll rate cap: the probe is late enough to need no refining poll', () => {
	it('jobs of 1.6–3.5 s cost under 2.8 polls on average, each found within 100 ms', () => {
		// (With the probe at 0.6 of the low quantile, as in bc618b7: 2.95 polls on average.)
		const runs = [];
		// Created 40 ms before polling began, give or take 40 (half an 80 ms submit round trip), as pollUntilReady has it;
		// the same learned times for each (a fresh copy: what one run learns does not move the next).
		for (let latencyMs = 1600; latencyMs <= 3500; latencyMs += 100) {
			for (const r of [0.1, 0.5, 0.9]) {
				const times = new ReadyTimes();
				for (let i = 0; i < 20; i++) times.add(KEY, 1500 + 100 * i);
				runs.push(pollAndLearn(latencyMs, times, () => r, { rate: 25, pollers: 30 }, 40, 40));
			}
		}
		expect(runs.reduce((sum, run) => sum + run.polls, 0) / runs.length).toBeLessThan(2.8);
		expect(Math.max(...runs.map((run) => run.lagMs))).toBeLessThanOrEqual(100);
	});
});

describe('the task’s origin (created during the submit round trip)', () => {
	it('a one-reading expected finish counts from the origin, so it is not early by the submit time', () => {
		// Created 100 ms before polling began; 50 % done 900 ms into polling → finishes at 1900 ms into polling.
		const unknown = new TaskTrack();
		unknown.see({ atMs: 900, status: 'Pending', progress: 0.5 });
		const known = new TaskTrack({ atMs: -100, errorMs: 0 });
		known.see({ atMs: 900, status: 'Pending', progress: 0.5 });
		expect(progressEta(unknown)!.atMs).toBeCloseTo(1800);
		expect(progressEta(known)!.atMs).toBeCloseTo(1900);
	});

	it('an uncertain origin widens the error, so the poll aimed at finish + error comes after the finish', () => {
		const track = new TaskTrack({ atMs: -50, errorMs: 50 }); // created 0–100 ms before polling began
		track.see({ atMs: 900, status: 'Pending', progress: 0.5 });
		const eta = progressEta(track)!;
		expect(eta.atMs + eta.errorMs).toBeGreaterThanOrEqual(1900); // the latest it can be
	});
});
