/**
 * A Redis that stops answering mid-batch (a real redis-server frozen with SIGSTOP: its socket stays open),
 * through n8n's engine (Submit → Collect, 30 images) with COMFLY_REDIS_URL set: the batch finishes while Redis
 * is still frozen, on per-process limits and the local journal, each job paid once; a fully cached re-run
 * finishes while frozen too; the report and the log say so once. After SIGCONT the shared limit is used again.
 */
import type { CollectReport } from '../../src/collect/report';
import { LoggerProxy } from 'n8n-workflow';

import type { RelaySimulator } from '../../relay-sim';
import { processAccountLimiter } from '../../src/fluxN8n/accountAdmission';
import type { EngineRun } from '../engine/harness';
import { leasesHeld, watchLeaseRemovals } from '../redis/limitLeases';
import { useRedisServer } from '../redis/useRedisServer';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import type { TestRedis } from '../support/redisServer';
import { useEnv } from '../support/useEnv';
import { runPromptBatch, until } from './setup';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 200 }, (started) => (sim = started));

let redis: TestRedis;
useRedisServer((started) => (redis = started));
// A limit of 10 over 30 jobs: jobs wait for leases in Redis while it freezes.
useEnv({ COMFLY_REDIS_URL: () => redis.url, COMFLY_IMAGE_CONCURRENCY: '10' });

const warn = jest.fn();
beforeAll(() => LoggerProxy.init({ error: jest.fn(), warn, info: jest.fn(), debug: jest.fn() }));
afterEach(() => {
	if (redis.frozen()) redis.thaw();
});

const report = (run: EngineRun) => run.outputOf('Collect', 1)[0].json as unknown as CollectReport;
const STALLED = /^Redis at 127\.0\.0\.1:\d+ stopped answering \(no reply within 2 s\): jobs run on per-process limits .* and the local journal until it answers again/;

it('the batch and a cached re-run finish while Redis is frozen, with one warning; after SIGCONT leases are taken in Redis again', async () => {
	const prompts = Array.from({ length: 30 }, (_, i) => `a frozen lake ${i}`);
	const watcher = redis.client();
	const first = runPromptBatch(sim, prompts);
	await until(async () => (await leasesHeld(watcher)) > 0, 'the batch holds leases in Redis');
	watcher.disconnect();
	redis.freeze();

	const run = await first;
	expect(redis.frozen()).toBe(true);
	expect(run.status).toBe('success');
	expect(report(run)).toMatchObject({ total: 30, allSucceeded: true, cached: 0 });
	expect(sim.log.tasks.size).toBe(30); // each job paid once
	expect(report(run).warnings).toEqual([expect.stringMatching(STALLED)]);

	const again = await runPromptBatch(sim, prompts);
	expect(redis.frozen()).toBe(true);
	expect(report(again)).toMatchObject({ total: 30, allSucceeded: true, cached: 30 });
	expect(sim.log.tasks.size).toBe(30);
	expect(report(again).warnings).toEqual(report(run).warnings);
	const logged = warn.mock.calls.map(([message]) => String(message)).filter((message) => message.includes('Redis at'));
	expect(logged).toEqual([expect.stringMatching(/stopped answering/)]); // one warning in the log

	redis.thaw();
	await until(() => processAccountLimiter().shared(), 'the shared limit is back');
	const admin = redis.client();
	const subscriber = redis.client();
	try {
		const watch = await watchLeaseRemovals(admin, subscriber);
		const after = await runPromptBatch(sim, prompts.map((prompt) => `${prompt}, thawed`));
		expect(report(after)).toMatchObject({ total: 30, allSucceeded: true, cached: 0 });
		await until(() => watch.removals.includes('zrem'), 'leases were taken and released in Redis again');
		expect(report(after).warnings).toEqual([expect.stringMatching(/was unreachable for a while \(no reply within 2 s\): .* it is back and the limit is shared again/)]);
	} finally {
		subscriber.disconnect();
		admin.disconnect();
	}
});
