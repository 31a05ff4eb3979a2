/**
 * A claim's release never overtakes the journal entries Redis refused before it (a real redis-server): under
 * `maxmemory` with noeviction Redis refuses SET (out of memory) but still takes DEL, so a release sent straight away
 * would leave Redis with neither the claim nor a record of the paid job, and another host claiming the key in Redis
 * would find it free and send the job again. Found by a hostile review.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { replayQueueOf } from '../../src/coordination/replayQueue';
import type { SharedRedis } from '../../src/redis';
import { openStore } from '../../src/store';
import { CLAIM_REDIS_PREFIX } from '../../src/store/claims/redisClaims';
import { sharedRedisAt } from '../redis/sharedRedisAt';
import { useRedisServer } from '../redis/useRedisServer';
import type { TestRedis } from '../support/redisServer';

let redis: TestRedis;
useRedisServer((started) => (redis = started));

const connections: SharedRedis[] = [];
const folders: string[] = [];
afterAll(async () => {
	for (const connection of connections) await connection.close();
	for (const dir of folders) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});

const TIMING = { heartbeatMs: 100, redisLeaseMs: 60_000, redisGraceMs: 300, waitMinMs: 5, waitMaxMs: 20 };

/** A host of its own: its store folder and its Redis connection (whose replay queue retries every 100 ms). */
function host(name: string) {
	const connection = sharedRedisAt(redis.url, { commandTimeoutMs: 1000, probeEveryMs: 50 });
	connections.push(connection);
	replayQueueOf(connection, 100);
	const dir = mkdtempSync(path.join(os.tmpdir(), `flux-release-order-${name}-`));
	folders.push(dir);
	return { connection, store: openStore({ dir, maxBytes: 1024 ** 3, ttlMs: 86_400_000 }, { redis: connection, claimTiming: TIMING, warn: () => undefined }) };
}

const START = { jobId: 'job-oom', apiStyle: 'relay' as const, baseUrl: 'http://127.0.0.1:1', model: 'flux-3-image', apiKeyHash: 'abc' };

it('Redis refusing writes (out of memory): the release waits behind the refused journal entries; another host then finds the record, not a free key', async () => {
	const a = host('a');
	const b = host('b');
	await new Promise((resolve) => setTimeout(resolve, 400)); // a fresh server is within the restart grace
	await (await a.store.claims.acquire('warm-a')).release();
	await (await b.store.claims.acquire('warm-b')).release();

	const key = 'oom-key';
	const claim = await a.store.claims.acquire(key);
	expect(claim.through).toEqual({ folder: true, redis: true });
	const admin = redis.client();
	try {
		await admin.config('SET', 'maxmemory', '1');
		await expect(admin.set('probe', 'x')).rejects.toThrow(/OOM/);
		expect(await a.store.journal.submitting(key, START)).toBe(true); // on disk; refused by Redis: queued
		expect(await a.store.journal.submitted(key, { taskId: 'task-paid-once' })).toBe(true);
		await claim.release();
		expect(await admin.exists(`mutex:${CLAIM_REDIS_PREFIX}${key}`)).toBe(1); // not released before the record is in Redis

		await admin.config('SET', 'maxmemory', '0');
		const other = await b.store.claims.acquire(key);
		expect(other).toMatchObject({ waited: true, through: { folder: true, redis: true } });
		expect(await b.store.journal.read(key)).toMatchObject({ state: 'submitted', taskId: 'task-paid-once' });
		await other.release();
	} finally {
		await admin.config('SET', 'maxmemory', '0');
		admin.disconnect();
	}
});
