/**
 * Redis lost mid-batch (a real redis-server killed with SIGKILL): the batch completes on per-process
 * limits, nothing is paid twice, the report's warnings say so; Redis back: the shared limit resumes.
 * Through the glue (obtainFluxImage, the process-wide limiter configured by COMFLY_REDIS_URL).
 */
import { processAccountLimiter } from '../../src/fluxN8n/accountAdmission';
import { redisWarnings } from '../../src/redis';
import { obtainFluxImage } from '../../src/fluxN8n/imageJobs';
import { storeWarnings } from '../../src/fluxN8n/fluxNode';
import type { RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import type { TestRedis } from '../support/redisServer';
import { useRedisServer } from '../redis/useRedisServer';
import { useEnv } from '../support/useEnv';
import { until } from '../support/until';
import { leasesHeld, watchLeaseRemovals } from '../redis/limitLeases';
import { jobContext } from '../support/preparedJobs';
import { preparedJob } from './support/preparedJob';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 300 }, (started) => (sim = started));

let redis: TestRedis;
useRedisServer((started) => (redis = started));
useEnv({ COMFLY_REDIS_URL: () => redis.url, COMFLY_IMAGE_CONCURRENCY: '5' });

const batch = (prefix: string, n: number) => Promise.all(Array.from({ length: n }, (_, i) => obtainFluxImage(preparedJob(sim, `${prefix} ${i}`), jobContext(`${prefix}-${i}`))));

describe('Redis lost mid-batch', () => {
	it('the batch completes on per-process limits with a warning; when Redis is back the shared limit resumes', async () => {
		const client = redis.client();
		expect(redisWarnings()).toEqual([]);
		const first = batch('before', 20);
		await until(async () => (await leasesHeld(client)) === 5, 'five leases are held in Redis');
		client.disconnect();
		await redis.kill();
		const results = await first;
		expect(results.every((r) => r.outcome === 'success')).toBe(true);
		expect(sim.log.tasks.size).toBe(20); // nothing lost, nothing paid twice
		expect(sim.log.peakActiveTasks).toBeLessThanOrEqual(5); // the per-process limit held meanwhile
		expect(processAccountLimiter().shared()).toBe(false);
		const warnings = redisWarnings();
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toMatch(/Redis at 127\.0\.0\.1:\d+ is unreachable .*per-process limits/);
		expect(storeWarnings()).toContain(warnings[0]); // the collector's report (its `warnings`)

		await redis.restart();
		await until(() => processAccountLimiter().shared(), 'the limiter sees Redis again');
		const again = redis.client();
		try {
			const second = batch('after', 10);
			await until(async () => (await leasesHeld(again)) > 0, 'leases are taken in Redis again');
			expect((await second).every((r) => r.outcome === 'success')).toBe(true);
			expect(redisWarnings()[0]).toMatch(/was unreachable for a while .* it is back and the limit is shared again/);
		} finally {
			again.disconnect();
		}
	});
});

describe('cancellation under the shared limit', () => {
	it('a cancelled execution releases its leases at once (not after the lease TTL), and its waiters leave the queue', async () => {
		sim.setLatency(600_000);
		const client = redis.client();
		const subscriber = redis.client();
		try {
			const controller = new AbortController();
			const jobs = Array.from({ length: 8 }, (_, i) => obtainFluxImage(preparedJob(sim, `cancel ${i}`), jobContext(`c-${i}`, controller.signal)));
			await until(() => sim.activeTasks() === 5, 'five jobs are active upstream');
			expect(await leasesHeld(client)).toBe(5);
			const watch = await watchLeaseRemovals(client, subscriber);
			controller.abort();
			const outcomes = await Promise.allSettled(jobs);
			expect(outcomes.every((o) => o.status === 'rejected' && (o.reason as { kind?: string }).kind === 'cancelled')).toBe(true);
			// The lease set is gone once its last lease left it, released or lapsed (the 10 s lease TTL): wait for that.
			await until(() => watch.keyGone(), 'the leases left Redis', { limitMs: 30_000 });
			expect(await leasesHeld(client)).toBe(0);
			expect(watch.removals).toEqual(['zrem', 'zrem', 'zrem', 'zrem', 'zrem']); // each released by its holder, none lapsed
			expect(sim.log.tasks.size).toBe(5); // the three waiting jobs never submitted
		} finally {
			subscriber.disconnect();
			client.disconnect();
		}
	});
});
