/** The per-account poll rate cap, on a fake clock (reservation arithmetic; nothing sleeps). */
import { accountKey, DEFAULT_POLL_RATE, PollRateLimiter, PollRateLimiters, readPollRate } from '../../src/flux/pollRate';

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

describe('PollRateLimiter', () => {
	it('300 polls asked for at once (30 jobs × 10) start at most `rate` per second, in the order asked', () => {
		const limiter = new PollRateLimiter(10);
		const starts = Array.from({ length: 300 }, () => limiter.reserve(0));
		expect(peakPerSecond(starts)).toBe(10);
		expect(starts).toEqual([...starts].sort((a, b) => a - b));
		expect(starts.at(-1)).toBe(29_000);
	});

	it('under the rate nothing waits', () => {
		const limiter = new PollRateLimiter(10);
		const asked = Array.from({ length: 100 }, (_, i) => i * 150); // 6.7 per second
		expect(asked.map((t) => limiter.reserve(t))).toEqual(asked);
	});

	it('a random mix of polls never exceeds the rate in any second', () => {
		const limiter = new PollRateLimiter(25);
		let t = 0;
		const starts: number[] = [];
		for (let i = 0; i < 2000; i++) {
			t += (i * 7919) % 97; // bursts and gaps
			starts.push(limiter.reserve(t));
			expect(starts.at(-1)).toBeGreaterThanOrEqual(t);
		}
		expect(peakPerSecond(starts)).toBeLessThanOrEqual(25);
	});

	it('refuses a rate that is not a positive integer', () => {
		expect(() => new PollRateLimiter(0)).toThrow(RangeError);
		expect(() => new PollRateLimiter(1.5)).toThrow(RangeError);
	});
});

describe('PollRateLimiters: one cap per account', () => {
	it('two keys on one host are two accounts; one key is one account however many jobs', () => {
		const limiters = new PollRateLimiters(5);
		const a = accountKey('https://relay.example', 'key-a');
		const b = accountKey('https://relay.example', 'key-b');
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
	it('a clock that goes back by more than a window (another clock) starts afresh instead of waiting for ages', () => {
		const limiter = new PollRateLimiter(2);
		for (let i = 0; i < 10; i++) limiter.reserve(1_700_000_000_000);
		expect(limiter.reserve(0)).toBe(0);
	});
});
