/** Redis configured but unreachable from the start (nothing listens on its port): jobs are admitted on per-process limits, with one warning that names where Redis was expected and never its password. */
import { accountKey, createAccountLimiter } from '../../src/accountLimit';
import { freePort } from '../support/redisServer';

describe('Redis unreachable from the start', () => {
	it('admits on the per-process limit, warns once, never shows the password', async () => {
		const port = await freePort();
		const warnings: string[] = [];
		const built = createAccountLimiter({ COMFLY_REDIS_URL: `redis://user:Sup3r-Secret-pw@127.0.0.1:${port}/0` }, { warn: (m) => warnings.push(m), info: () => undefined });
		try {
			const name = accountKey('key', 'flux-3-image');
			const first = built.limiter.admission(name, 2);
			const second = built.limiter.admission(name, 2);
			await first.acquire();
			await second.acquire();
			expect([first.sharedLease, second.sharedLease]).toEqual([false, false]);
			// the per-process limit still holds: a third waits until one is released
			const third = built.limiter.admission(name, 2);
			let admitted = false;
			const waiting = third.acquire().then(() => (admitted = true));
			await new Promise((resolve) => setImmediate(resolve));
			expect(admitted).toBe(false);
			first.release('ready');
			await waiting;
			expect(built.limiter.shared()).toBe(false);
			expect(warnings).toHaveLength(1);
			expect(built.limiter.warnings()).toHaveLength(1);
			for (const text of [...warnings, ...built.limiter.warnings()]) {
				expect(text).toContain(`redis://127.0.0.1:${port}/0`);
				expect(text).not.toContain('Sup3r-Secret-pw');
			}
			second.release('ended');
			third.release('ended');
		} finally {
			await built.close();
		}
	});

	it('a bad setting is one warning naming the variable, and per-process limits', () => {
		const warnings: string[] = [];
		const built = createAccountLimiter({ EXECUTIONS_MODE: 'queue', QUEUE_BULL_REDIS_PORT: 'six' }, { warn: (m) => warnings.push(m), info: () => undefined });
		expect(warnings).toEqual([expect.stringMatching(/^QUEUE_BULL_REDIS_PORT is not valid .*per process/)]);
		expect(built.limiter.shared()).toBe(true);
	});
});
