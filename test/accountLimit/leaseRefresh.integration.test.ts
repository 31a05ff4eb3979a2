/**
 * A lease held while Redis goes away keeps being refreshed in the background: those refreshes fail, and
 * must fail quietly. An unhandled rejection would bring down the n8n worker (Node's default). Regression:
 * redis-semaphore's own refresh timer rejected unhandled while Redis was away.
 */
import { accountId } from '../../src/account';
import { createAccountLimiter, limitName } from '../../src/accountLimit';
import { sharedRedisAt } from '../redis/sharedRedisAt';
import type { TestRedis } from '../support/redisServer';
import { useRedisServer } from '../redis/useRedisServer';
import { until } from '../support/until';

let redis: TestRedis;
useRedisServer((started) => (redis = started));


it('refreshes of a lease held while Redis is away fail without an unhandled rejection', async () => {
	const unhandled: unknown[] = [];
	const onUnhandled = (reason: unknown) => unhandled.push(reason);
	process.on('unhandledRejection', onUnhandled);
	const shared = sharedRedisAt(redis.url);
	// Every Redis call of a held lease goes through SharedRedis.run: its refreshes (skipped at once while Redis is away).
	const runs = jest.spyOn(shared, 'run');
	const refreshes = () => runs.mock.calls.length;
	const limiter = createAccountLimiter(shared, { warn: () => undefined, leaseTiming: { ttlMs: 2000, refreshMs: 100, retryIntervalMs: 25 } });
	try {
		const admission = limiter.admission(limitName(accountId({ apiStyle: 'relay', baseUrl: 'http://127.0.0.1', apiKey: 'key' }), 'flux-3-image'), 3);
		await admission.acquire();
		expect(admission.sharedLease).toBe(true);
		await redis.kill();
		const before = refreshes();
		await until(() => refreshes() >= before + 3, 'three refreshes were tried while Redis is away');
		await new Promise((resolve) => setImmediate(resolve));
		expect(unhandled).toEqual([]);
		admission.release('ended');
	} finally {
		runs.mockRestore();
		process.off('unhandledRejection', onUnhandled);
		await shared.close();
		await redis.restart();
	}
});
