/**
 * Closing the connection after Redis went away leaves nothing behind for long: ioredis arms a ref'd timer
 * (its `disconnectTimeout`) to destroy a socket that is already closed, which kept jest (and any process
 * closing the limiter) alive for 2 s ("Jest did not exit one second after the test run has completed").
 */
import { RedisConnection, readRedisTarget } from '../../src/accountLimit';
import { startTestRedis, type TestRedis } from '../support/redisServer';

let redis: TestRedis;
beforeAll(async () => {
	redis = await startTestRedis();
});
afterAll(async () => {
	await redis?.stop();
});

async function until(check: () => boolean, what: string): Promise<void> {
	for (let i = 0; i < 1000 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
	if (!check()) throw new Error(`timed out waiting until ${what}`);
}

it('close() after Redis was killed arms no long timer', async () => {
	const connection = new RedisConnection(readRedisTarget({ COMFLY_REDIS_URL: redis.url })!);
	expect(await connection.ready()).toBe(true);
	await redis.kill();
	await until(() => !connection.up(), 'the client saw Redis go');
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
