/**
 * The poll schedule and the per-account poll rate cap together, on a virtual clock (no I/O, no CPU noise): N jobs on a
 * pool of C workers, each submitted (round trip `submitMs`, the task created midway), Ready after its latency, polled
 * by the schedule through the cap (a poll takes `pollMs`, it reads the state halfway), then downloaded (`downloadMs`).
 * Prints the makespan against the ideal, the lag, polls per job and the peak polls in one second.
 * `npx ts-node --transpile-only bench/capModel.ts [srcRoot]` (srcRoot: another checkout's src/flux, to compare;
 * REPS=N: N batches per scenario, their mean, median and p90 ratio instead of the median of 3 batches).
 * Not part of `npm run bench`; a tool for reasoning about the cap.
 */
import path from 'node:path';
import { mulberry32 } from '../relay-sim/prng';
import { peakPollsPerSecond } from './sizedSim';
import { listScheduleMakespan } from './stats';

type Schedule = typeof import('../src/flux/pollSchedule');
type Rate = typeof import('../src/flux/pollRate');
type Poll = typeof import('../src/flux/poll');

/* eslint-disable @typescript-eslint/no-require-imports -- the modules of a checkout chosen at run time (to compare two) */
const root = path.resolve(process.argv[2] ?? path.join(__dirname, '../src/flux'));
const sched = require(path.join(root, 'pollSchedule')) as Schedule;
const rateMod = require(path.join(root, 'pollRate')) as Rate;
const pollMod = require(path.join(root, 'poll')) as Partial<Poll>;
/* eslint-enable @typescript-eslint/no-require-imports */

/** A virtual clock: timers fire in time order; between two, every microtask and immediate runs. */
class VirtualClock {
	t = 0;
	private timers: Array<{ at: number; seq: number; fire: () => void }> = [];
	private seq = 0;
	now = () => this.t;
	sleep = (ms: number) => new Promise<void>((resolve) => this.timers.push({ at: this.t + Math.max(0, ms), seq: this.seq++, fire: resolve }));
	async run(until: () => boolean): Promise<void> {
		for (;;) {
			await new Promise((r) => setImmediate(r));
			if (until() || this.timers.length === 0) return;
			this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
			const next = this.timers.shift()!;
			this.t = Math.max(this.t, next.at);
			next.fire();
		}
	}
}

interface Scenario {
	name: string;
	n: number;
	c: number;
	latency: (i: number) => number;
	rate: number;
	warmups: number;
}

const SUBMIT_MS = 60;
const POLL_MS = 10;
const DOWNLOAD_MS = 15;

async function runBatch(sc: Scenario, times: InstanceType<Schedule['ReadyTimes']>, random: () => number, seedOffset: number) {
	const clock = new VirtualClock();
	const limiter = new rateMod.PollRateLimiter(sc.rate);
	const key = 'k';
	const pollTimes: number[] = [];
	const lags: number[] = [];
	let polls = 0;
	let done = 0;
	let next = 0;
	const latencies = Array.from({ length: sc.n }, (_, i) => sc.latency(i + seedOffset));
	const job = async (i: number) => {
		await clock.sleep(SUBMIT_MS);
		const created = clock.t - SUBMIT_MS / 2;
		const readyAt = created + latencies[i];
		const startedAt = clock.t;
		const origin = { atMs: -SUBMIT_MS / 2, errorMs: SUBMIT_MS / 2 };
		const track = new sched.TaskTrack(origin as never); // an older TaskTrack ignores the origin
		const limiterLoad = limiter as unknown as { enter?: () => void; leave?: () => void; load?: () => { pollers: number } };
		limiterLoad.enter?.();
		for (;;) {
			const learned = times.window(key, 5);
			const account = limiterLoad.load ? { rate: sc.rate, pollers: limiterLoad.load().pollers } : undefined;
			const wait = sched.nextAdaptiveWait({ elapsedMs: clock.t - startedAt, track, learned, account, settings: sched.DEFAULT_ADAPTIVE_SCHEDULE, random, fallbackMs: () => Math.max(250, 0.05 * (clock.t - startedAt)) } as never);
			await clock.sleep(wait);
			await limiter.take(clock.now, clock.sleep);
			polls++;
			pollTimes.push(clock.t);
			await clock.sleep(POLL_MS / 2);
			const seenReady = clock.t >= readyAt;
			const progress = Math.min(1, Math.round(((clock.t - created) / latencies[i]) * 100) / 100);
			await clock.sleep(POLL_MS / 2);
			const atMs = clock.t - startedAt;
			if (seenReady) {
				const learnedMs = track.polls === 0 ? ((times as unknown as { censored?: (k: string, s: number, r: () => number) => number }).censored?.(key, atMs, random) ?? atMs) : (pollMod.readyTimeOf?.(track, atMs) ?? atMs);
				times.add(key, learnedMs);
				limiterLoad.leave?.();
				break;
			}
			track.see({ atMs, status: 'Pending', progress });
		}
		await clock.sleep(DOWNLOAD_MS);
		lags.push(clock.t - readyAt);
		done++;
	};
	const worker = async () => {
		while (next < sc.n) await job(next++);
	};
	for (let w = 0; w < Math.min(sc.c, sc.n); w++) void worker();
	await clock.run(() => done === sc.n);
	const ideal = listScheduleMakespan(latencies, sc.c);
	lags.sort((a, b) => a - b);
	return { wall: clock.t, ideal, eff: ideal / clock.t, lagP50: lags[Math.floor(lags.length / 2)], lagMax: lags.at(-1)!, polls: polls / sc.n, peak: peakPollsPerSecond(pollTimes) };
}

async function main() {
	const uniform = (seed: number, min: number, max: number) => {
		const next = mulberry32(seed);
		return () => min + ((max - min) * next()) / 0x1_0000_0000;
	};
	const rateEnv = Number(process.env.RATE ?? 25);
	const summarise = process.env.REPS !== undefined;
	const reps = Number(process.env.REPS ?? 3);
	if (!Number.isInteger(reps) || reps < 1) throw new Error(`REPS must be a whole number ≥ 1, not ${process.env.REPS}`);
	const scenarios: Scenario[] = [
		{ name: '1a N=30 L 1.9–2.1 s', n: 30, c: 30, latency: (i) => uniform(i, 1900, 2100)(), rate: rateEnv, warmups: 1 },
		{ name: '1b N=300 C=30 L 1.9–2.1 s', n: 300, c: 30, latency: (i) => uniform(i, 1900, 2100)(), rate: rateEnv, warmups: 1 },
		{ name: '12a N=30 L 1.5–3.5 s', n: 30, c: 30, latency: (i) => uniform(i, 1500, 3500)(), rate: rateEnv, warmups: 1 },
		{ name: '12b N=30 L 12–20 s', n: 30, c: 30, latency: (i) => uniform(i, 12_000, 20_000)(), rate: rateEnv, warmups: 1 },
	];
	for (const sc of scenarios) {
		const random = (() => {
			const next = mulberry32(99);
			return () => next() / 0x1_0000_0000;
		})();
		const times = new sched.ReadyTimes();
		for (let w = 0; w < sc.warmups; w++) await runBatch({ ...sc, n: 30, c: 30 }, times, random, 1000 + w * 30);
		const rows: Array<Awaited<ReturnType<typeof runBatch>>> = [];
		for (let rep = 0; rep < reps; rep++) rows.push(await runBatch(sc, times, random, rep * 1000));
		if (summarise) {
			const mean = (of: (row: (typeof rows)[number]) => number) => rows.reduce((sum, row) => sum + of(row), 0) / rows.length;
			const ratios = rows.map((row) => row.wall / row.ideal).sort((a, b) => a - b);
			const median = reps % 2 === 1 ? ratios[(reps - 1) / 2] : (ratios[reps / 2 - 1] + ratios[reps / 2]) / 2;
			const p90 = ratios[Math.ceil(0.9 * reps) - 1]; // nearest rank
			console.log(`${sc.name} (cap ${sc.rate}/s), ${reps} batches: ×${mean((row) => row.wall / row.ideal).toFixed(4)} mean, ×${median.toFixed(4)} median, ×${p90.toFixed(4)} p90; slowest lag ${mean((row) => row.lagMax).toFixed(0)} ms mean; polls/job ${mean((row) => row.polls).toFixed(2)}`);
			continue;
		}
		const r = rows.sort((a, b) => a.eff - b.eff)[1];
		console.log(`${sc.name} (cap ${sc.rate}/s): eff ${r.eff.toFixed(3)} (wall ${r.wall.toFixed(0)} / ideal ${r.ideal.toFixed(0)}; ×${(r.wall / r.ideal).toFixed(3)}) lag p50 ${r.lagP50.toFixed(0)} max ${r.lagMax.toFixed(0)} polls/job ${r.polls.toFixed(2)} peak ${r.peak}/s`);
	}
}
main().catch((e) => {
	console.error(e);
	process.exit(1);
});
