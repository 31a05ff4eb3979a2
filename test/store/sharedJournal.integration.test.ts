/**
 * The journal shared through a real redis-server (queue mode): a record written by one worker is read by
 * another whose store folder is not shared; with Redis gone the local journal carries on, and the newer of
 * the two records wins when Redis returns.
 */
import { mkdtempSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SharedRedis } from '../../src/redis';
import { ReplayQueue } from '../../src/coordination/replayQueue';
import { JobJournal, StoreFaults, redisJournalMirror } from '../../src/store';
import { sharedRedisAt } from '../redis/sharedRedisAt';
import { until } from '../support/until';
import { startTestRedis, type TestRedis } from '../support/redisServer';

let redis: TestRedis;
const connections: SharedRedis[] = [];
beforeAll(async () => {
	redis = await startTestRedis();
});
afterAll(async () => {
	for (const c of connections) await c.close();
	await redis?.stop();
});

let clock = 1_000_000;
/** A journal mirrored to the test Redis, with the health of its faults and its replay queue's `replay` (what the store does each time Redis answers again). */
function worker() {
	const connection = sharedRedisAt(redis.url);
	connections.push(connection);
	const mirror = redisJournalMirror(connection, 3_600_000);
	const faults = new StoreFaults(() => undefined);
	const replays = new ReplayQueue();
	const journal = new JobJournal(mkdtempSync(path.join(os.tmpdir(), 'flux-shared-journal-')), { ttlMs: 3_600_000, mirror, faults, replays, now: () => clock++ });
	return Object.assign(journal, { health: () => faults.health(), remirror: () => replays.replay() });
}

const START = { jobId: 'job-1', apiStyle: 'relay', baseUrl: 'http://127.0.0.1:1', model: 'flux-3-image', apiKeyHash: 'abc' };

describe('the journal shared through Redis', () => {
	it("another worker (own store folder) sees a job's records: a re-run there re-attaches instead of paying again", async () => {
		const a = worker();
		const b = worker();
		expect(await a.submitting('key-1', START)).toBe(true);
		expect(await b.read('key-1')).toMatchObject({ state: 'submitting', jobId: 'job-1' });
		expect(await a.submitted('key-1', { taskId: 'task-1' })).toBe(true);
		expect(await b.read('key-1')).toMatchObject({ state: 'submitted', taskId: 'task-1' });
		expect(await b.findByJobId('job-1')).toMatchObject({ jobKey: 'key-1', record: { state: 'submitted' } });
		// b advances it (it re-attached and stored the result): a sees the newer record
		expect(await b.stored('key-1')).toBe(true);
		expect(await a.read('key-1')).toMatchObject({ state: 'stored' });
	});

	it('Redis gone: every journal call still succeeds on the local journal', async () => {
		const a = worker();
		expect(await a.submitting('key-2', { ...START, jobId: 'job-2' })).toBe(true);
		await redis.kill();
		try {
			expect(await a.submitted('key-2', { taskId: 'task-2' })).toBe(true);
			expect(await a.read('key-2')).toMatchObject({ state: 'submitted', taskId: 'task-2' });
			expect(a.health().ok).toBe(true);
		} finally {
			await redis.restart();
		}
	});

	it('records written while Redis was away reach it when it answers again: another worker never reads a stale "submitting"', async () => {
		const a = worker();
		const b = worker();
		expect(await a.submitting('key-3', { ...START, jobId: 'job-3' })).toBe(true);
		await redis.kill();
		try {
			expect(await a.submitted('key-3', { taskId: 'task-3' })).toBe(true);
			expect(await a.stored('key-3')).toBe(true);
		} finally {
			await redis.restart();
		}
		// What the store does each time Redis answers again (openStore: before claims are released there).
		await until(async () => {
			await a.remirror();
			return (await b.read('key-3'))?.state === 'stored';
		}, 'the records written meanwhile are mirrored');
		expect(await b.read('key-3')).toMatchObject({ state: 'stored', taskId: 'task-3' });
	});

});
