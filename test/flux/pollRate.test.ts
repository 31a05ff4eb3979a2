/** The per-account poll rate cap, on a fake clock (reservation arithmetic; nothing sleeps). */
import { accountId } from '../../src/account';
import { DEFAULT_POLL_RATE, readPollRate } from '../../src/config';
import { GUARD_MS, PollRateLimiter, PollRateLimiters } from '../../src/flux/pollRate';

/** The most reservations that fall in any one-second window [t, t + 1000). */
function peakPerSecond(starts: number[]): number {
	const sorted = [...starts].sort((a, b) => a - b);
	let peak = 0;
	for (let i = 0, j = 0; i < sorted.length; i++) {
		while (sorted[i] - sorted[j] >= 1000) j++;
		peak = Math.max(peak, i - j + 1);
	}
	return peak;
}

/** A fake clock: `sleep` advances it; `at` lets a test set it. */
function fakeClock(start = 0) {
	const clock = { t: start, now: () => clock.t, sleep: async (ms: number) => void (clock.t += ms) };
	return clock;
}

/** `count` polls asked for at the times `asked`, one after another on the fake clock; their start times. */
async function takeAll(limiter: PollRateLimiter, asked: number[]): Promise<number[]> {
	const clock = fakeClock();
	const starts: number[] = [];
	for (const t of asked) {
		clock.t = Math.max(clock.t, t);
		await limiter.take(clock.now, clock.sleep);
		starts.push(clock.t);
	}
	return starts;
}

describe('PollRateLimiter', () => {
	it('300 polls asked for at once (30 jobs × 10) start at most `rate` per second', async () => {
		const starts = await takeAll(new PollRateLimiter(10), new Array<number>(300).fill(0));
		expect(peakPerSecond(starts)).toBe(10);
		expect(starts.at(-1)).toBeGreaterThanOrEqual(29_000);
		// 29 full windows of 1 s + the guard, then the last window's polls at the token rate after its burst.
		expect(starts.at(-1)).toBeLessThanOrEqual(29 * (1000 + GUARD_MS) + (10 - new PollRateLimiter(10).burst) * 100);
	});

	it('under the rate nothing waits', async () => {
		const asked = Array.from({ length: 100 }, (_, i) => i * 150); // 6.7 per second
		expect(await takeAll(new PollRateLimiter(10), asked)).toEqual(asked);
	});

	it('a random mix of polls never exceeds the rate in any second, and none starts before it asked', async () => {
		let t = 0;
		const asked = Array.from({ length: 2000 }, (_, i) => (t += (i * 7919) % 97)); // bursts and gaps
		const starts = await takeAll(new PollRateLimiter(25), asked);
		starts.forEach((start, i) => expect(start).toBeGreaterThanOrEqual(asked[i]));
		expect(peakPerSecond(starts)).toBeLessThanOrEqual(25);
	});

	it('polls that wake late together (a stalled event loop) still start at most `rate` per second', async () => {
		const limiter = new PollRateLimiter(5);
		const clock = fakeClock();
		const starts: number[] = [];
		const waiters = Array.from({ length: 20 }, async () => {
			await limiter.take(clock.now, async (ms) => {
				await Promise.resolve();
				clock.t += ms; // every sleeper advances the shared clock: they all wake "late"
			});
			starts.push(clock.t);
		});
		await Promise.all(waiters);
		expect(starts).toHaveLength(20);
		expect(peakPerSecond(starts)).toBeLessThanOrEqual(5);
	});

	it("starts smoothly: half a second's worth of polls at once, the rest one per 1/rate s (never a second's worth at once)", async () => {
		const limiter = new PollRateLimiter(25);
		const starts = await takeAll(limiter, new Array<number>(25).fill(0));
		expect(limiter.burst).toBe(13);
		expect(starts.filter((t) => t === 0)).toHaveLength(13);
		for (let i = 13; i < 25; i++) expect(starts[i] - starts[i - 1]).toBeGreaterThanOrEqual(40);
		expect(starts.at(-1)).toBeLessThan(1000);
	});

	it('serves waiting polls first come, first served, and an aborted wait gives its turn to the next', async () => {
		const limiter = new PollRateLimiter(2);
		const clock = fakeClock();
		const order: string[] = [];
		const sleep = async (ms: number) => {
			await Promise.resolve();
			clock.t += ms;
		};
		const aborted = async () => {
			await Promise.resolve();
			throw new Error('aborted');
		};
		const polls = ['a', 'b', 'c', 'd', 'e'].map(async (name) => {
			await limiter.take(clock.now, name === 'c' ? aborted : sleep).then(
				() => order.push(name),
				() => order.push(`${name} gave up`),
			);
		});
		expect(limiter.load().queued).toBe(5);
		await Promise.all(polls);
		expect(order).toEqual(['a', 'b', 'c gave up', 'd', 'e']);
		expect(limiter.load().queued).toBe(0);
	});

	it('a poll whose job is cancelled while it waits its turn leaves at once and takes no slot; the next keeps its place', async () => {
		const limiter = new PollRateLimiter(1);
		const clock = fakeClock();
		await limiter.take(clock.now, clock.sleep); // a: starts at 0
		let release!: () => void;
		const held = new Promise<void>((resolve) => (release = resolve));
		const b = limiter.take(clock.now, async (ms) => {
			await held; // b waits for its slot until the test lets it go
			clock.t += ms;
		});
		const controller = new AbortController();
		let cOutcome = 'waiting';
		const c = limiter.take(clock.now, clock.sleep, controller.signal).then(
			() => (cOutcome = 'started'),
			(error: Error) => (cOutcome = error.message),
		);
		const d = limiter.take(clock.now, clock.sleep);
		controller.abort(new Error('job cancelled'));
		await new Promise<void>((resolve) => setImmediate(resolve));
		// c did not wait for b (behind 1,000 polls at a rate of 1, that would be minutes of a cancelled job).
		expect(cOutcome).toBe('job cancelled');
		expect(limiter.load().queued).toBe(2);
		release();
		await b;
		expect(clock.t).toBe(1000 + GUARD_MS);
		await d;
		await c;
		expect(clock.t).toBe(2 * (1000 + GUARD_MS)); // c took no slot between b and d
		expect(limiter.load().queued).toBe(0);
	});

	it('a poll asking with an already aborted signal never waits', async () => {
		const limiter = new PollRateLimiter(1);
		const clock = fakeClock();
		await limiter.take(clock.now, clock.sleep);
		await expect(limiter.take(clock.now, clock.sleep, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
		await limiter.take(clock.now, clock.sleep);
		expect(clock.t).toBe(1000 + GUARD_MS);
	});

	it('counts the jobs polling now (enter / leave)', () => {
		const limiter = new PollRateLimiter(5);
		limiter.enter();
		limiter.enter();
		limiter.leave();
		expect(limiter.load().pollers).toBe(1);
		limiter.leave();
		limiter.leave();
		expect(limiter.load().pollers).toBe(0);
	});

	it('refuses a rate that is not a positive integer', () => {
		expect(() => new PollRateLimiter(0)).toThrow(RangeError);
		expect(() => new PollRateLimiter(1.5)).toThrow(RangeError);
	});
});

describe('PollRateLimiters: one cap per account', () => {
	it('two keys on one host are two accounts; one key is one account however many jobs', () => {
		const limiters = new PollRateLimiters(5);
		const a = accountId({ apiStyle: 'relay', baseUrl: 'https://relay.example', apiKey: 'key-a' });
		const b = accountId({ apiStyle: 'relay', baseUrl: 'https://relay.example', apiKey: 'key-b' });
		expect(limiters.for(a)).toBe(limiters.for(a));
		expect(limiters.for(a)).not.toBe(limiters.for(b));
		expect(a).not.toContain('key-a'); // the key itself is never kept
	});
});

describe('readPollRate (COMFLY_POLL_RATE)', () => {
	it.each([
		[undefined, DEFAULT_POLL_RATE],
		['', DEFAULT_POLL_RATE],
		[' 10 ', 10],
		['1000', 1000],
	])('%p → %p without a warning', (raw, expected) => {
		const warn = jest.fn();
		expect(readPollRate({ COMFLY_POLL_RATE: raw }, warn)).toBe(expected);
		expect(warn).not.toHaveBeenCalled();
	});

	it.each(['0', '-3', '2.5', 'fast', '1001'])('%p → the default and one warning naming the variable', (raw) => {
		const warn = jest.fn();
		expect(readPollRate({ COMFLY_POLL_RATE: raw }, warn)).toBe(DEFAULT_POLL_RATE);
		expect(warn).toHaveBeenCalledTimes(1);
		expect(warn.mock.calls[0][0]).toMatch(/COMFLY_POLL_RATE=.*not a whole number/);
	});
});

describe('PollRateLimiter and clocks', () => {
	it('a clock that goes back by more than a window (another clock) starts afresh instead of waiting for ages', async () => {
		const limiter = new PollRateLimiter(2);
		const late = fakeClock(1_700_000_000_000);
		for (let i = 0; i < 10; i++) await limiter.take(late.now, late.sleep);
		expect(limiter.waitMs(0)).toBe(0);
	});
});
