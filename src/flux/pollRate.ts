/**
 * The per-account poll rate cap: at most `rate` status polls start in any one-second window (a little
 * more: {@link GUARD_MS}), across every job of one account (src/account's accountId: API style, base URL and key) in this process, and
 * they start smoothly: at most half a second's worth back to back, then one per 1/`rate` s (a token rate),
 * so the server never gets a second's worth of polls at once. Waiting polls start in the order they asked. It
 * runs on the caller's clock and sleep: tests drive it with fake ones.
 */
const WINDOW_MS = 1000;
/**
 * A start and the `rate`-th next one are at least 1 s + this apart. The server stamps a poll when it
 * handles it, some time after it started here (the network, its own event loop): two polls a second
 * apart must differ in that delay by more than this before a server-side window holds one more.
 */
export const GUARD_MS = 40;
/** At most half the rate (and at least this many) polls start back to back; the rest follow at the token rate (1/`rate` s apart). */
export const MIN_BURST = 5;

/** `promise`, or a rejection with the signal's reason as soon as `signal` fires (its listener removed either way). */
async function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
	let onAbort!: () => void;
	const aborted = new Promise<never>((_, reject) => {
		onAbort = () => reject(signal.reason);
		if (signal.aborted) onAbort();
		else signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		await Promise.race([promise, aborted]);
	} finally {
		signal.removeEventListener('abort', onAbort);
	}
}

/**
 * At most `rate` polls start in any window of 1 s + {@link GUARD_MS}, and at most {@link burst} at once
 * (a token rate of `rate`/s behind them). {@link take} waits its turn (first come, first served), then
 * waits on the caller's clock and sleep until both rules allow a start, and records the actual start:
 * the window is counted on real start times, so a stalled event loop cannot release a bunch at once.
 */
export class PollRateLimiter {
	/** Start times of the last `rate` polls, a ring (oldest at `next`). */
	private readonly starts: number[];
	private next = 0;
	private latestNow = Number.NEGATIVE_INFINITY;
	/** The token rate's theoretical time of the next start (GCRA); a start may come `burst` − 1 intervals before it. */
	private due = Number.NEGATIVE_INFINITY;
	private readonly intervalMs: number;
	/** Polls that may start back to back: half the rate, at least {@link MIN_BURST} (or the rate). */
	readonly burst: number;
	/** The turn of the last poll that asked (FIFO). */
	private turn: Promise<void> = Promise.resolve();
	private queued = 0;
	/** Jobs of the account polling now (between {@link enter} and {@link leave}). */
	private pollers = 0;

	constructor(readonly rate: number) {
		if (!Number.isInteger(rate) || rate < 1) throw new RangeError(`poll rate must be a positive integer, got ${rate}`);
		this.starts = new Array<number>(rate).fill(Number.NEGATIVE_INFINITY);
		this.intervalMs = WINDOW_MS / rate;
		this.burst = Math.max(Math.min(MIN_BURST, rate), Math.ceil(rate / 2));
	}

	/** How long a poll starting at `now` must wait (0: it may start now), ignoring the polls queued before it. */
	waitMs(now: number): number {
		// A clock that went back by more than a window is another clock (a test's): start afresh.
		if (now < this.latestNow - WINDOW_MS) {
			this.starts.fill(Number.NEGATIVE_INFINITY);
			this.due = Number.NEGATIVE_INFINITY;
		}
		this.latestNow = Math.max(this.latestNow, now);
		const windowWait = this.starts[this.next] + WINDOW_MS + GUARD_MS - now;
		const rateWait = this.due - (this.burst - 1) * this.intervalMs - now;
		return Math.max(0, windowWait, rateWait);
	}

	/**
	 * Waits for its turn and a slot, then takes the slot (records its start). A rejected sleep gives the turn up;
	 * so does `signal` (the job's cancel): it rejects at once with the signal's reason, even while polls queued
	 * before it still wait, and its turn, when it comes, takes no slot.
	 */
	async take(now: () => number, sleep: (ms: number) => Promise<void>, signal?: AbortSignal): Promise<void> {
		const mine = this.turn.then(() => {
			signal?.throwIfAborted();
			return this.startWhenAllowed(now, sleep);
		});
		this.turn = mine.catch(() => undefined);
		this.queued++;
		try {
			await (signal ? untilAborted(mine, signal) : mine);
		} finally {
			this.queued--;
		}
	}

	private async startWhenAllowed(now: () => number, sleep: (ms: number) => Promise<void>): Promise<void> {
		for (let wait = this.waitMs(now()); wait > 0; wait = this.waitMs(now())) await sleep(wait);
		const t = now();
		this.starts[this.next] = t;
		this.next = (this.next + 1) % this.rate;
		this.due = Math.max(this.due, t) + this.intervalMs;
	}

	/** A job of the account begins polling (counted for {@link load}). */
	enter(): void {
		this.pollers++;
	}

	/** A job of the account stops polling. */
	leave(): void {
		this.pollers = Math.max(0, this.pollers - 1);
	}

	/** How loaded the cap is: the jobs polling now and the polls waiting for a slot. */
	load(): { pollers: number; queued: number } {
		return { pollers: this.pollers, queued: this.queued };
	}
}

/** One limiter per account (keyed by src/account's accountId), at one rate. */
export class PollRateLimiters {
	private readonly byAccount = new Map<string, PollRateLimiter>();

	constructor(readonly rate: number) {}

	for(account: string): PollRateLimiter {
		let limiter = this.byAccount.get(account);
		if (!limiter) this.byAccount.set(account, (limiter = new PollRateLimiter(this.rate)));
		return limiter;
	}
}
