import { startTestRedis, type TestRedis, type TestRedisOptions } from '../support/redisServer';

/**
 * Jest lifecycle for a test file that needs a real redis-server of its own (test/support/redisServer.ts):
 * started on a free loopback port before all tests (handed to `use`), stopped after all.
 */
export function useRedisServer(use: (redis: TestRedis) => void, options: TestRedisOptions = {}): void {
	let redis: TestRedis | undefined;
	beforeAll(async () => {
		redis = await startTestRedis(options);
		use(redis);
	});
	afterAll(async () => {
		await redis?.stop();
	});
}
