/**
 * The latency-aware poll schedule (pure: no clock, no timers, no I/O; the caller passes times and a
 * random source). It decides the wait before the next status poll from what is known about the task:
 *
 * 1. The API's `progress` (0–1, or percent) and status changes: progress rising linearly gives the
 *    expected finish (ETA). The next poll is aimed at it where the poll rate cap leaves room, else just after
 *    it (the ETA plus the error the progress rounding allows), but a jump never more than `maxJumpFactor` × the
 *    time already waited, so a progress that does not run linearly is re-read before it can cost much.
 * 2. Else the times-to-ready observed for the same model (its submit route) in this process ({@link ReadyTimes}):
 *    nothing before the low quantile of those times but one early probe (it may bring progress),
 *    then evenly spaced polls across the observed spread, so a job costs about `spreadPolls` polls.
 * 3. Else (the first jobs of a process, an API without progress) the caller's fallback: the
 *    elapsed-fraction policy.
 * Past the expected finish the task is polled densely (`nearFraction` of the expected time apart), and further apart
 * once it is later than the finish's error.
 * Long waits are shortened by up to `jitter` at random, so jobs submitted together do not poll in
 * lock-step. See docs/ARCHITECTURE.md.
 */

/** Tuning of the adaptive schedule (the defaults are what `npm run bench` measures). */
export interface AdaptiveScheduleSettings {
	/** Never poll sooner than this after the previous poll. */
	minWaitMs: number;
	/** Never wait longer than this (a wrong estimate costs at most this much lag). */
	maxWaitMs: number;
	/** A jump is at most this many times the time elapsed since submit. */
	maxJumpFactor: number;
	/** After the expected finish, poll this fraction of the expected time apart. */
	nearFraction: number;
	/** From the learned times alone: about this many polls spread across the observed spread. */
	spreadPolls: number;
	/** Long waits are shortened by up to this fraction at random. */
	jitter: number;
	/** Learned times are used once this many were observed for the model. */
	minSamples: number;
}

export const DEFAULT_ADAPTIVE_SCHEDULE: Readonly<AdaptiveScheduleSettings> = Object.freeze({
	minWaitMs: 50,
	maxWaitMs: 15_000,
	maxJumpFactor: 3,
	nearFraction: 0.01,
	spreadPolls: 8,
	jitter: 0.15,
	minSamples: 5,
});

/** Progress as a fraction 0–1: a number 0–1, a percentage (1 < n ≤ 100) or a string "45%" / "0.45"; else undefined. */
export function progressFraction(value: unknown): number | undefined {
	let n: number;
	if (typeof value === 'number') n = value;
	else if (typeof value === 'string' && /^\s*\d+(\.\d+)?\s*%?\s*$/.test(value)) n = value.includes('%') ? parseFloat(value) / 100 : parseFloat(value);
	else return undefined;
	if (!Number.isFinite(n) || n < 0) return undefined;
	if (n > 1) n = n <= 100 ? n / 100 : NaN;
	return Number.isFinite(n) ? n : undefined;
}

/** One poll answer as the schedule sees it: when (ms since submit), the status, the progress if any. */
export interface PollSighting {
	atMs: number;
	status: string;
	progress?: number;
}

/** What one task's polls have shown so far (per job; feed it every pending answer). */
export class TaskTrack {
	/** The last two progress readings of the current status phase, oldest first. */
	readonly readings: Array<{ atMs: number; progress: number }> = [];
	/** ms since polling began when the current status began (the task's creation, or midway between the polls around a change). */
	phaseStartMs: number;
	/** How far off {@link phaseStartMs} may be (the first phase: half the submit round trip). */
	phaseStartErrorMs: number;
	status?: string;
	lastPollMs = 0;
	polls = 0;

	/**
	 * `origin`: when the task was created, as far as the submit tells (ms before polling began): the server created
	 * it during the submit round trip, so midway through it, give or take half of it. Unknown: 0 ± 0 (as before).
	 */
	constructor(origin: { atMs: number; errorMs: number } = { atMs: 0, errorMs: 0 }) {
		this.phaseStartMs = origin.atMs;
		this.phaseStartErrorMs = origin.errorMs;
	}

	see(sighting: PollSighting): void {
		if (this.status !== undefined && sighting.status !== this.status) {
			this.readings.length = 0;
			this.phaseStartMs = (this.lastPollMs + sighting.atMs) / 2;
			this.phaseStartErrorMs = (sighting.atMs - this.lastPollMs) / 2;
		}
		this.status = sighting.status;
		this.lastPollMs = sighting.atMs;
		this.polls++;
		if (sighting.progress === undefined || sighting.progress <= 0 || sighting.progress >= 1) return;
		this.readings.push({ atMs: sighting.atMs, progress: sighting.progress });
		if (this.readings.length > 2) this.readings.shift();
	}
}

/** Expected finish (ms since submit) and how far off it may be, from the progress readings; undefined without any. */
export function progressEta(track: TaskTrack): { atMs: number; errorMs: number } | undefined {
	const last = track.readings.at(-1);
	if (!last) return undefined;
	const first = track.readings.length === 2 ? track.readings[0] : { atMs: track.phaseStartMs, progress: 0 };
	const dt = last.atMs - first.atMs;
	const dp = last.progress - first.progress;
	if (dt <= 0 || dp <= 0) return undefined;
	const rate = dp / dt; // progress per ms
	const remaining = (1 - last.progress) / rate;
	// Progress is usually rounded to a percent: each reading may be half a percent off, which moves
	// the finish by half a percent's time and the rate by (0.005 per rounded reading) / dp. From one
	// reading, the phase's start is the other point: its own error moves the rate by that much of dt.
	const rateError = (track.readings.length === 2 ? 0.01 : 0.005 + (track.phaseStartErrorMs / dt) * dp) / dp;
	return { atMs: last.atMs + remaining, errorMs: 0.005 / rate + remaining * rateError };
}

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

/** Times-to-ready observed per model (submit route) in this process (a window of the latest `size`). */
export class ReadyTimes {
	private readonly byKey = new Map<string, number[]>();

	constructor(private readonly size = 64) {}

	add(key: string, ms: number): void {
		if (!Number.isFinite(ms) || ms < 0) return;
		const list = this.byKey.get(key) ?? [];
		list.push(ms);
		if (list.length > this.size) list.shift();
		this.byKey.set(key, list);
	}

	/** The low and high quantiles (5 % / 95 %) of the observed times, once `minSamples` were seen. */
	window(key: string, minSamples: number): { lowMs: number; highMs: number } | undefined {
		const list = this.byKey.get(key);
		if (!list || list.length < minSamples) return undefined;
		const sorted = [...list].sort((a, b) => a - b);
		const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))];
		return { lowMs: at(0.05), highMs: at(0.95) };
	}

	/**
	 * A time-to-ready for a task first seen Ready at `seenMs` with no poll before (so it became Ready at some time
	 * up to `seenMs`): one of the learned times up to `seenMs`, drawn at random (the learned distribution below
	 * `seenMs`, so such tasks do not drag the estimate late); `seenMs` when none is that early.
	 */
	censored(key: string, seenMs: number, random: () => number): number {
		const below = (this.byKey.get(key) ?? []).filter((ms) => ms <= seenMs);
		return below.length === 0 ? seenMs : below[Math.min(below.length - 1, Math.floor(clamp(random(), 0, 1) * below.length))];
	}

	clear(): void {
		this.byKey.clear();
	}
}

/** Everything the schedule decides from (times in ms since submit). */
export interface ScheduleInput {
	elapsedMs: number;
	track: TaskTrack;
	learned?: { lowMs: number; highMs: number };
	/** The account's poll rate cap and how many of its jobs poll now (none: uncapped, probes always worth it). */
	account?: { rate: number; pollers: number };
	settings: AdaptiveScheduleSettings;
	random: () => number;
	/** The wait when nothing is known (the elapsed-fraction policy). */
	fallbackMs: () => number;
}


/**
 * A probe, the first poll of a job with learned times, comes at a fraction of their low quantile, spread down by up
 * to PROBE_SPREAD. With wide learned times, at WIDE_PROBE_AT: late enough that its one reading gives an expected
 * finish close enough for the next poll to be the last (at 0.6 most jobs needed a refining poll too, and at the poll
 * rate cap those refining polls, bunched in the last second of a batch, held up the final polls:
 * `npx ts-node --transpile-only bench/probeRows.ts 1m,4m`). The few that explore narrow ones: at PROBE_AT, early
 * enough that their progress tells where the times have moved.
 */
const WIDE_PROBE_AT = 0.9;
const PROBE_AT = 0.6;
const PROBE_SPREAD = 0.3;
/** A refining poll is aimed this many finish errors before the expected finish. */
const REFINE_ERRORS = 3;
/** The learned times are "wide" when their spread is at least this share of their middle: a probe's progress pays. */
const WIDE_SPREAD = 0.25;
/** The share of the account's poll rate the schedule plans to use (the rest absorbs retries and bunching). */
const RATE_SHARE = 0.8;
/** Polls a job needs when its first poll is aimed at the middle of narrow learned times (Ready then about half the time). */
const MIDDLE_POLLS = 1.5;
/** With the cap saturated, this share of the jobs still probes, so the learned times keep following the truth. */
const EXPLORE = 0.1;

/**
 * Whether the account's polling jobs, finishing evenly over `spreadMs` (at least a second), can each have `pollsEach`
 * polls within the share of the cap the schedule plans to use.
 */
function capHasRoom(account: { rate: number; pollers: number }, spreadMs: number, pollsEach: number): boolean {
	const finishesPerSecond = account.pollers / (Math.max(1000, spreadMs) / 1000);
	return pollsEach * finishesPerSecond <= RATE_SHARE * account.rate;
}

/**
 * When a job with learned times polls first (ms since polling began), and whether that poll is a probe (jittered).
 * - Wide learned times (spread ≥ {@link WIDE_SPREAD} of their middle): an early probe, whose progress gives the
 *   expected finish (~2–3 polls a job; the probes come well before the first finishes, the finishes spread out).
 * - Narrow ones, uncapped or with room under the cap: the middle of the learned times (~1.5 polls a job).
 * - Narrow ones where the account's polling jobs, finishing within about a second of each other, would need more
 *   than the cap allows at 1.5 polls each: the high quantile (1 poll a job, Ready then 95 % of the time; a few
 *   probe, {@link EXPLORE}). A second of cap serves `rate` jobs; any poll before Ready only delays the others.
 */
function firstPoll(input: ScheduleInput, learned: { lowMs: number; highMs: number }): { atMs: number; probe: boolean } {
	const { account } = input;
	const middle = (learned.lowMs + learned.highMs) / 2;
	const spread = learned.highMs - learned.lowMs;
	if (spread >= WIDE_SPREAD * middle) return { atMs: learned.lowMs * WIDE_PROBE_AT, probe: true };
	const probe = { atMs: learned.lowMs * PROBE_AT, probe: true };
	if (!account) return { atMs: middle, probe: false };
	if (capHasRoom(account, spread, MIDDLE_POLLS)) return { atMs: middle, probe: false };
	return clamp(input.random(), 0, 1) < EXPLORE ? probe : { atMs: learned.highMs, probe: false };
}

/** Shortened by up to `jitter` of itself at random (never below the minimum wait). */
function jittered(ms: number, input: ScheduleInput, jitter = input.settings.jitter): number {
	const r = clamp(input.random(), 0, 1);
	return Math.max(input.settings.minWaitMs, Math.round(ms * (1 - jitter * r)));
}

/** The wait before the next poll. */
export function nextAdaptiveWait(input: ScheduleInput): number {
	const wait = adaptiveWait(input);
	return Math.round(clamp(wait ?? input.fallbackMs(), input.settings.minWaitMs, input.settings.maxWaitMs));
}

function adaptiveWait(input: ScheduleInput): number | undefined {
	const { elapsedMs, track, learned, settings } = input;
	const eta = progressEta(track);
	if (eta) return towards(eta, input);
	if (!learned) return undefined;
	if (track.polls === 0) {
		// A probe early enough to leave time to act on its progress, jittered so a batch spreads out; or (narrow
		// learned times) a first poll where the task is likely Ready (see firstPoll).
		const first = firstPoll(input, learned);
		return first.atMs > elapsedMs + settings.minWaitMs ? jittered(first.atMs - elapsedMs, input, first.probe ? PROBE_SPREAD : 0) : settings.minWaitMs;
	}
	const spread = Math.max(learned.highMs - learned.lowMs, settings.nearFraction * learned.highMs);
	const interval = clamp(spread / settings.spreadPolls, settings.minWaitMs, 3 * settings.nearFraction * learned.highMs);
	// Nothing before the fastest times seen (one interval early), then evenly across the observed
	// spread, and a little past it (the high quantile is not the slowest).
	if (elapsedMs < learned.lowMs - interval) return learned.lowMs - interval - elapsedMs;
	if (elapsedMs <= learned.highMs * 1.5) return interval;
	return undefined; // much slower than anything seen: the elapsed-fraction policy
}

/**
 * Polls a job with progress may cost where its last poll is aimed at the expected finish: the probe, sometimes a
 * refining poll, the poll at the finish, and for about half the jobs one more after it (2.5–2.6 a job on average in
 * the tests' simulation without a cap, against 2.0–2.1 when aimed just after the finish).
 */
const AT_FINISH_POLLS = 3;
/** Past the expected finish and its error, a task not yet Ready is polled this fraction of how late it is apart. */
const OVERDUE_BACKOFF = 0.5;

/**
 * Whether the poll after the expected finish's refinement may aim at the finish itself rather than just after it:
 * with no cap, or when the account's polling jobs, finishing across what is left of the learned spread (from this
 * job's elapsed time to the high quantile, at least a second), leave room under the cap for {@link AT_FINISH_POLLS}
 * each (30 jobs of 12–20 s finish about 4 a second). Aimed at the finish, about half the tasks are Ready at that
 * poll, seen at most one finish error late, and the rest at the dense polls after it; aimed at the finish plus its
 * error, every task is Ready there, seen up to two errors late, for about half a poll a job less. Where finishes
 * bunch under the cap (30 jobs of 1.5–3.5 s: some 15 a second to the end), those extra polls would hold up the
 * others'.
 */
function roomToAimAtFinish(input: ScheduleInput): boolean {
	const { account, learned, elapsedMs } = input;
	if (!account) return true;
	if (!learned) return false;
	return capHasRoom(account, learned.highMs - Math.max(learned.lowMs, elapsedMs), AT_FINISH_POLLS);
}

/**
 * Towards the expected finish: when the progress reading is too coarse (its finish error above the dense
 * interval), one refining poll a few errors before it; then a poll at the expected finish where there is room
 * ({@link roomToAimAtFinish}), else just after it (expected finish + error); past that, dense polls, spaced out once
 * the task is later than the finish and its error ({@link OVERDUE_BACKOFF}: a progress that stopped being reported,
 * say stuck at 100 %, does not take the account's poll rate for itself). A jump is capped by the time elapsed (a
 * non-linear progress is re-read in time).
 */
function towards(eta: { atMs: number; errorMs: number }, input: ScheduleInput): number {
	const { elapsedMs, settings } = input;
	const near = Math.max(settings.minWaitMs, settings.nearFraction * eta.atMs);
	const refineAt = eta.atMs - REFINE_ERRORS * eta.errorMs;
	const finish = roomToAimAtFinish(input) ? eta.atMs : eta.atMs + eta.errorMs;
	const target = eta.errorMs > near && refineAt - elapsedMs > near ? refineAt : finish;
	const remaining = target - elapsedMs;
	if (remaining <= near) return Math.max(near, OVERDUE_BACKOFF * (elapsedMs - eta.atMs - eta.errorMs));
	const cap = Math.max(settings.minWaitMs, settings.maxJumpFactor * elapsedMs);
	return remaining <= cap ? remaining : jittered(cap, input);
}
