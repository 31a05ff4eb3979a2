import {
	DEFAULT_POLL_POLICY,
	nextPollDelay,
	backoffDelay,
	classifyNetworkError,
	parseRetryAfter,
	resolvePolicy,
	withJitter,
} from '../../src/flux/retryPolicy';
import { realSleep as sleep } from '../../src/flux/job';

describe('backoffDelay', () => {
	const p = { initialDelayMs: 500, factor: 1.5, maxDelayMs: 4000, jitter: 0 };
	it('grows exponentially up to the cap', () => {
		expect([0, 1, 2, 3, 4, 5, 6, 10].map((n) => backoffDelay(p, n))).toEqual([500, 750, 1125, 1688, 2531, 3797, 4000, 4000]);
	});
	it('applies jitter downwards only', () => {
		const j = { ...p, jitter: 0.5 };
		expect(backoffDelay(j, 0, () => 0)).toBe(500);
		expect(backoffDelay(j, 0, () => 1)).toBe(250);
		expect(backoffDelay(j, 20, () => 0.999)).toBeGreaterThanOrEqual(2000);
	});
	it('defaults: every 5 % of the elapsed time, 250 ms to 2 s apart', () => {
		expect(DEFAULT_POLL_POLICY).toMatchObject({ initialDelayMs: 250, maxDelayMs: 2000, elapsedFraction: 0.05 });
	});
	it('nextPollDelay follows the elapsed time, clamped, and falls back to backoff without a fraction', () => {
		const noJitter = { ...DEFAULT_POLL_POLICY, jitter: 0 };
		expect(nextPollDelay(noJitter, 0, 0)).toBe(250);
		expect(nextPollDelay(noJitter, 3, 2_000)).toBe(250);
		expect(nextPollDelay(noJitter, 20, 10_000)).toBe(500);
		expect(nextPollDelay(noJitter, 40, 30_000)).toBe(1_500);
		expect(nextPollDelay(noJitter, 60, 120_000)).toBe(2_000);
		expect(nextPollDelay({ ...noJitter, jitter: 0.2 }, 20, 10_000, () => 1)).toBe(400);
		const backoff = { ...noJitter, elapsedFraction: 0 };
		expect(nextPollDelay(backoff, 2, 10_000)).toBe(backoffDelay(backoff, 2));
	});
	it('resolvePolicy fills and sanitises partial policies', () => {
		expect(resolvePolicy(DEFAULT_POLL_POLICY, { initialDelayMs: 5, factor: 0.5, jitter: 7 })).toMatchObject({
			initialDelayMs: 5,
			factor: 1,
			jitter: 1,
			maxDelayMs: 2000,
		});
		expect(resolvePolicy(DEFAULT_POLL_POLICY, { initialDelayMs: -1 }).initialDelayMs).toBe(250);
	});
});

describe('parseRetryAfter', () => {
	const now = Date.parse('2025-01-01T00:00:00Z');
	it('reads delta seconds', () => {
		expect(parseRetryAfter('3', now)).toBe(3000);
		expect(parseRetryAfter(['0.5'], now)).toBe(500);
	});
	it('reads an HTTP date', () => {
		expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:07 GMT', now)).toBe(7000);
		expect(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0);
	});
	it('ignores garbage', () => {
		expect(parseRetryAfter(undefined, now)).toBeUndefined();
		expect(parseRetryAfter('soon', now)).toBeUndefined();
		expect(parseRetryAfter('', now)).toBeUndefined();
	});
});

describe('sleep', () => {
	it('rejects when aborted, clearing its timer (a 60 s sleep ends within the test timeout)', async () => {
		const ac = new AbortController();
		const p = sleep(60_000, ac.signal);
		ac.abort('stop');
		await expect(p).rejects.toMatchObject({ name: 'AbortError', cause: 'stop' });
	});
	it('rejects at once on an aborted signal', async () => {
		await expect(sleep(10, AbortSignal.abort())).rejects.toThrow(/aborted/);
	});
});

describe('one jitter formula', () => {
	it('reduces a delay by up to `jitter` of itself', () => {
		expect(withJitter(1000, 0.2, () => 0)).toBe(1000);
		expect(withJitter(1000, 0.2, () => 1)).toBe(800);
		expect(withJitter(1000, 0.2, () => 0.5)).toBe(900);
	});
	it('backoff and poll delays both use it', () => {
		const policy = { ...DEFAULT_POLL_POLICY, elapsedFraction: 0.05, jitter: 0.2 };
		expect(nextPollDelay(policy, 0, 20_000, () => 1)).toBe(withJitter(1000, 0.2, () => 1));
		expect(backoffDelay({ initialDelayMs: 1000, factor: 2, maxDelayMs: 8000, jitter: 0.2 }, 1, () => 1)).toBe(withJitter(2000, 0.2, () => 1));
	});
});

describe('classifyNetworkError (paid-job rule)', () => {
	const e = (code: string) => Object.assign(new Error(code), { code });
	it.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_SSL_WRONG_VERSION_NUMBER'])(
		'%s: the connection never opened',
		(code) => expect(classifyNetworkError(e(code))).toBe('not_connected'),
	);
	it.each(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT', 'UND_ERR_CLOSED'])(
		'%s: ambiguous (never retried)',
		(code) => expect(classifyNetworkError(e(code))).toBe('ambiguous'),
	);
	it('treats certificate errors as not sent but not worth retrying', () => {
		expect(classifyNetworkError(e('CERT_HAS_EXPIRED'))).toBe('tls_certificate');
	});
	it('looks into AggregateError (happy eyeballs) and cause chains', () => {
		expect(classifyNetworkError(new AggregateError([e('ECONNREFUSED'), e('ECONNREFUSED')]))).toBe('not_connected');
		expect(classifyNetworkError(new AggregateError([e('ECONNREFUSED'), e('ECONNRESET')]))).toBe('ambiguous');
		expect(classifyNetworkError(new Error('fetch failed', { cause: e('ECONNREFUSED') }))).toBe('not_connected');
		expect(classifyNetworkError(new Error('no code'))).toBe('ambiguous');
	});
});
