/**
 * A lease that lapsed while Redis stayed reachable (Redis restarted empty, or the process stalled past the
 * lease TTL) is not a Redis outage: the limit stays shared, the report carries no "unreachable" warning,
 * and the log says what happened.
 */
import { accountId } from '../../src/account';
import { createAccountLimiter, limitName } from '../../src/accountLimit';
import { sharedRedisAt } from '../redis/sharedRedisAt';
import type { TestRedis } from '../support/redisServer';
import { useRedisServer } from '../redis/useRedisServer';
import { until } from '../support/until';
import { limitKeys } from '../redis/limitLeases';

let redis: TestRedis;
useRedisServer((started) => (redis = started));


it('a lapsed lease with Redis up warns in the log, and neither unshares the limit nor reports Redis unreachable', async () => {
	const logged: string[] = [];
	const shared = sharedRedisAt(redis.url, { warn: (m) => logged.push(m) });
	const limiter = createAccountLimiter(shared, { warn: (m) => logged.push(m), leaseTiming: { ttlMs: 2000, refreshMs: 50, retryIntervalMs: 25 } });
	const client = redis.client();
	try {
		const admission = limiter.admission(limitName(accountId({ apiStyle: 'relay', baseUrl: 'http://127.0.0.1', apiKey: 'key' }), 'flux-3-image'), 3);
		await admission.acquire();
		expect(admission.sharedLease).toBe(true);
		await client.del(...(await limitKeys(client))); // the lease is gone, Redis is not
		await until(() => logged.length > 0, 'the lapsed lease is noticed');
		expect(logged).toEqual([expect.stringMatching(/lease .*lapsed/)]);
		expect(limiter.shared()).toBe(true);
		expect(shared.warnings()).toEqual([]);
		admission.release('ended');
	} finally {
		client.disconnect();
		await shared.close();
	}
});
