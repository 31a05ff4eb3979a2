/**
 * The per-account poll rate cap: at most `rate` status polls start in any one-second window, across
 * every job of one account (API key and API host) in this process: a poll waits until the oldest of
 * the last `rate` starts has left the window, so the cap holds however many jobs poll at once. It runs
 * on the caller's clock and sleep: tests drive it with fake ones.
 */
import { createHash } from 'node:crypto';

import { z } from 'zod';

/** Default: 25 polls per second per account (see the README: what 30 workers of 2 s jobs need). */
export const DEFAULT_POLL_RATE = 25;
export const MAX_POLL_RATE = 1000;
const WINDOW_MS = 1000;
/** A little more than a second between a start and the `rate`-th next one: network jitter cannot squeeze a window. */
const GUARD_MS = 10;

/**
 * At most `rate` polls start in any one-second window. {@link take} waits (on the caller's clock and
 * sleep) until the oldest of the last `rate` starts has left the window, then records the actual start:
 * the window is counted on real start times, so a stalled event loop cannot release a bunch at once.
 */
export class PollRateLimiter {
	/** Start times of the last `rate` polls, a ring (oldest at `next`). */
	private readonly starts: number[];
	private next = 0;
	private latestNow = Number.NEGATIVE_INFINITY;

	constructor(readonly rate: number) {
		if (!Number.isInteger(rate) || rate < 1) throw new RangeError(`poll rate must be a positive integer, got ${rate}`);
		this.starts = new Array<number>(rate).fill(Number.NEGATIVE_INFINITY);
	}

	/** How long a poll starting at `now` must wait (0: it may start now). */
	waitMs(now: number): number {
		// A clock that went back by more than a window is another clock (a test's): start afresh.
		if (now < this.latestNow - WINDOW_MS) this.starts.fill(Number.NEGATIVE_INFINITY);
		this.latestNow = Math.max(this.latestNow, now);
		return Math.max(0, this.starts[this.next] + WINDOW_MS + GUARD_MS - now);
	}

	/** Waits for a slot, then takes it (records its start). */
	async take(now: () => number, sleep: (ms: number) => Promise<void>): Promise<void> {
		for (let wait = this.waitMs(now()); wait > 0; wait = this.waitMs(now())) await sleep(wait);
		this.starts[this.next] = now();
		this.next = (this.next + 1) % this.rate;
	}
}

const rateText = z.string().trim().regex(/^\d+$/, 'a whole number of polls per second').transform(Number).pipe(z.number().int().min(1).max(MAX_POLL_RATE));

/**
 * `COMFLY_POLL_RATE` (polls per second per account): unset or blank → {@link DEFAULT_POLL_RATE};
 * anything but an integer 1–1000 → the default plus one `warn` call naming the variable.
 */
export function readPollRate(env: Readonly<Record<string, string | undefined>>, warn: (message: string) => void): number {
	const raw = env.COMFLY_POLL_RATE;
	if (raw === undefined || raw.trim() === '') return DEFAULT_POLL_RATE;
	const parsed = rateText.safeParse(raw);
	if (parsed.success) return parsed.data;
	warn(`[n8n-nodes-flux-concurrent] COMFLY_POLL_RATE=${JSON.stringify(raw.slice(0, 40))} is not a whole number of polls per second from 1 to ${MAX_POLL_RATE}; using ${DEFAULT_POLL_RATE}.`);
	return DEFAULT_POLL_RATE;
}

/** The account a job polls as: its API host and a hash of its key (the key itself is never kept here). */
export function accountKey(origin: string, apiKey: string): string {
	return `${origin} ${createHash('sha256').update(apiKey).digest('hex').slice(0, 16)}`;
}

/** One limiter per account, at one rate (shared by every copy of this module in the process). */
export class PollRateLimiters {
	private readonly byAccount = new Map<string, PollRateLimiter>();

	constructor(readonly rate: number) {}

	for(account: string): PollRateLimiter {
		let limiter = this.byAccount.get(account);
		if (!limiter) this.byAccount.set(account, (limiter = new PollRateLimiter(this.rate)));
		return limiter;
	}
}
