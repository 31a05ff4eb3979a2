/** Redis configured but unreachable from the start (nothing listens on its port): jobs are admitted on per-process limits, with one warning that names where Redis was expected and never its password. */
import { accountId } from '../../src/account';
import { createAccountLimiter, limitName } from '../../src/accountLimit';
import { readSettings } from '../../src/config';
import { sharedRedisAt } from '../redis/sharedRedisAt';
import { freePort } from '../support/redisServer';

describe('Redis unreachable from the start', () => {
	it('admits on the per-process limit, warns once, never shows the password', async () => {
		const port = await freePort();
		const warnings: string[] = [];
		const redis = sharedRedisAt(`redis://user:Sup3r-Secret-pw@127.0.0.1:${port}/0`, { warn: (m) => warnings.push(m) });
		const limiter = createAccountLimiter(redis, { warn: (m) => warnings.push(m) });
		try {
			const name = limitName(accountId({ apiStyle: 'relay', baseUrl: 'http://127.0.0.1', apiKey: 'key' }), 'flux-3-image');
			const first = limiter.admission(name, 2);
			const second = limiter.admission(name, 2);
			await first.acquire();
			await second.acquire();
			expect([first.sharedLease, second.sharedLease]).toEqual([false, false]);
			// the per-process limit still holds: a third waits until one is released
			const third = limiter.admission(name, 2);
			let admitted = false;
			const waiting = third.acquire().then(() => (admitted = true));
			await new Promise((resolve) => setImmediate(resolve));
			expect(admitted).toBe(false);
			first.release('ready');
			await waiting;
			expect(limiter.shared()).toBe(false);
			expect(warnings).toHaveLength(1);
			expect(redis.warnings()).toHaveLength(1);
			for (const text of [...warnings, ...redis.warnings()]) {
				expect(text).toContain(`Redis at 127.0.0.1:${port} is unreachable`);
				expect(text).not.toContain('Sup3r-Secret-pw');
			}
			second.release('ended');
			third.release('ended');
		} finally {
			await redis.close();
		}
	});

	it('a bad setting is one warning naming the variable, and per-process limits', () => {
		const warnings: string[] = [];
		const settings = readSettings({ EXECUTIONS_MODE: 'queue', QUEUE_BULL_REDIS_PORT: 'six' }, (m) => warnings.push(m));
		expect(warnings).toEqual([expect.stringMatching(/^QUEUE_BULL_REDIS_PORT is not valid .*per process/)]);
		expect(settings.redis.target).toBeUndefined();
		expect(createAccountLimiter(undefined, { warn: (m) => warnings.push(m) }).shared()).toBe(true); // per-process limits
	});
});
