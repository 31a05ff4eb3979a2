/**
 * Closing the connection after Redis went away leaves nothing behind for long: ioredis arms a ref'd timer
 * (its `disconnectTimeout`) to destroy a socket that is already closed, which kept jest (and any process
 * closing the limiter) alive for 2 s ("Jest did not exit one second after the test run has completed").
 */
import type { TestRedis } from '../support/redisServer';
import { sharedRedisAt } from './sharedRedisAt';
import { useRedisServer } from './useRedisServer';
import { until } from '../support/until';

let redis: TestRedis;
useRedisServer((started) => (redis = started));


it('close() after Redis was killed arms no long timer', async () => {
	const connection = sharedRedisAt(redis.url);
	expect(await connection.ready()).toBe(true);
	await redis.kill();
	await until(() => !connection.usable(), 'the client saw Redis go');
	const timers = jest.spyOn(global, 'setTimeout');
	try {
		await connection.close();
		const delays = timers.mock.calls.map((call) => Number(call[1] ?? 0));
		expect(delays.filter((ms) => ms > 100)).toEqual([]);
	} finally {
		timers.mockRestore();
		await redis.restart();
	}
});
