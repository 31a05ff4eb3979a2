/**
 * A lease held while Redis goes away keeps being refreshed in the background: those refreshes fail, and
 * must fail quietly. An unhandled rejection would bring down the n8n worker (Node's default). Regression:
 * redis-semaphore's own refresh timer rejected unhandled while Redis was away.
 */
import { Semaphore } from 'redis-semaphore';
import { accountKey, createAccountLimiter } from '../../src/accountLimit';
import type { TestRedis } from '../support/redisServer';
import { useRedisServer } from '../redis/useRedisServer';
import { until } from '../support/until';

let redis: TestRedis;
useRedisServer((started) => (redis = started));


it('refreshes of a lease held while Redis is away fail without an unhandled rejection', async () => {
	const unhandled: unknown[] = [];
	const onUnhandled = (reason: unknown) => unhandled.push(reason);
	process.on('unhandledRejection', onUnhandled);
	const proto = Semaphore.prototype as unknown as { _refresh: () => Promise<boolean> };
	const original = proto._refresh;
	let refreshes = 0;
	proto._refresh = function (this: unknown) {
		refreshes++;
		return original.call(this);
	};
	const built = createAccountLimiter({ COMFLY_REDIS_URL: redis.url }, { warn: () => undefined, info: () => undefined, leaseTiming: { ttlMs: 2000, refreshMs: 100, retryIntervalMs: 25 } });
	try {
		const admission = built.limiter.admission(accountKey('key', 'flux-3-image'), 3);
		await admission.acquire();
		expect(admission.sharedLease).toBe(true);
		await redis.kill();
		const before = refreshes;
		await until(() => refreshes >= before + 3, 'three refreshes were tried while Redis is away');
		await new Promise((resolve) => setImmediate(resolve));
		expect(unhandled).toEqual([]);
		admission.release('ended');
	} finally {
		proto._refresh = original;
		process.off('unhandledRejection', onUnhandled);
		await built.close();
		await redis.restart();
	}
});
