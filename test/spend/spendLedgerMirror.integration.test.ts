/**
 * The folder's ledger beside the ledger in Redis (one machine, two processes on one store folder, a real
 * redis-server): a reservation Redis granted is in the folder's ledger by the time `reserve` resolves, so a process
 * of the same machine that cannot reach Redis sees it and the limit holds exactly. This is the in-process form of
 * the frozen-Redis race that bought 61 under a limit of 60 (ledgerFaults.integration.test.ts) when the folder was written after
 * the reservation returned. A Redis restarted empty gets every machine's folder ledger back, and a machine that had
 * nothing of an account waits (restartSettled) until the others put theirs back.
 */
import { promises as fs, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { replayQueueOf } from '../../src/coordination/replayQueue';
import type { SharedRedis } from '../../src/redis';
import { FileLedger, LedgerUnusableError, RedisLedger, SpendLedger, type SpendLimits } from '../../src/spend';
import { sharedRedisAt } from '../redis/sharedRedisAt';
import { until } from '../support/until';
import { useRedisServer } from '../redis/useRedisServer';
import { freePort, type TestRedis } from '../support/redisServer';

let redis: TestRedis;
useRedisServer((started) => (redis = started));

const opened: SharedRedis[] = [];
const folders: string[] = [];
afterAll(async () => {
	await Promise.all(opened.map(async (client) => await client.close()));
	for (const dir of folders) rmSync(dir, { recursive: true, force: true, maxRetries: 5 }); // a background write may still land in a folder (ENOTEMPTY): once a suite failed here with all its tests passed
});

let accounts = 0;
const newAccount = () => `${'d'.repeat(28)}${String(++accounts).padStart(4, '0')}`;
const folder = () => {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'flux-spend-mirror-'));
	folders.push(dir);
	return dir;
};

async function liveRedis(): Promise<SharedRedis> {
	const client = sharedRedisAt(redis.url, { commandTimeoutMs: 1000 });
	opened.push(client);
	await client.ready();
	return client;
}

/** A SharedRedis on a loopback port nobody listens on: every command answers `{ ok: false }` (Redis away). */
async function awayRedis(): Promise<SharedRedis> {
	const client = sharedRedisAt(`redis://127.0.0.1:${await freePort()}`, { commandTimeoutMs: 1000 });
	opened.push(client);
	await client.ready();
	return client;
}

const request = (id: string, limits: SpendLimits) => ({ id, priceKey: 'flux-3-image:mirror', listPrice: 4, limits, blockMs: 60_000 });

it('a reservation Redis granted is in the folder when reserve resolves: a process of the machine without Redis is refused at the limit', async () => {
	const dir = folder();
	const account = newAccount();
	const withRedis = new SpendLedger({ dir, redis: await liveRedis() });
	const withoutRedis = new SpendLedger({ dir, redis: await awayRedis() });

	const first = await withRedis.reserve(account, request('granted-in-redis', { jobs: 1 }));
	expect(first).toMatchObject({ kind: 'reserved', place: 'shared' });
	// No idle(): nothing is left to write after the reservation.
	expect((await withRedis.file.read(account)).entries.map((entry) => entry.id)).toEqual(['granted-in-redis']);

	const second = await withoutRedis.reserve(account, request('away', { jobs: 1 }));
	expect(second).toMatchObject({ kind: 'refused', limit: 'jobs', place: 'machine' });
	expect(withoutRedis.warnings().join('\n')).toMatch(/hold per machine/);
});

it('what a process spent while Redis was away reaches Redis with the next change of the account, counted once', async () => {
	const dir = folder();
	const account = newAccount();
	const withRedis = new SpendLedger({ dir, redis: await liveRedis() });
	const withoutRedis = new SpendLedger({ dir, redis: await awayRedis() });
	const limits = { jobs: 3 };

	expect(await withRedis.reserve(account, request('a', limits))).toMatchObject({ kind: 'reserved', place: 'shared' });
	expect(await withoutRedis.reserve(account, request('b', limits))).toMatchObject({ kind: 'reserved', place: 'machine' });
	expect(await withRedis.reserve(account, request('c', limits))).toMatchObject({ kind: 'reserved', place: 'shared' });
	expect(await withRedis.reserve(account, request('d', limits))).toMatchObject({ kind: 'refused', place: 'shared' });

	// Another machine (its own folder) reads Redis: all three, b among them.
	const elsewhere = new SpendLedger({ dir: folder(), redis: await liveRedis() });
	expect((await elsewhere.balance(account)).spent).toEqual({ credits: 12, jobs: 3 });
});

it('a refusal, a wait and a refund of nothing write neither Redis nor the folder; a refusal still brings Redis what the folder alone held', async () => {
	const dir = folder();
	const account = newAccount();
	const withRedis = new SpendLedger({ dir, redis: await liveRedis() });
	// Every write of the account's key in Redis, counted from its keyspace notifications (a PING on the same connection: all delivered).
	const direct = redis.client();
	await direct.config('SET', 'notify-keyspace-events', 'K$');
	let redisWrites = 0;
	direct.on('message', (_channel: string, event: string) => (redisWrites += event === 'set' ? 1 : 0));
	await direct.subscribe(`__keyspace@0__:${RedisLedger.keyOf(account)}`);
	const redisRev = async () => {
		await direct.ping();
		return redisWrites;
	};
	const renames = jest.spyOn(fs, 'rename');
	const folderWrites = () => renames.mock.calls.filter(([, to]) => to === withRedis.file.fileOf(account)).length;
	try {
		expect(await withRedis.reserve(account, request('priced', { jobs: 3 }))).toMatchObject({ kind: 'reserved', place: 'shared' });
		const unpriced = { ...request('unpriced', { credits: 40 }), listPrice: undefined, priceKey: 'flux-3-image:unpriced' };
		expect(await withRedis.reserve(account, unpriced)).toMatchObject({ kind: 'reserved', entry: { credits: null } });
		const [rev, writes] = [await redisRev(), folderWrites()];
		expect(writes).toBe(2);

		expect(await withRedis.reserve(account, request('refused', { jobs: 2 }))).toMatchObject({ kind: 'refused', place: 'shared' });
		expect(await withRedis.reserve(account, { ...unpriced, id: 'waits' })).toMatchObject({ kind: 'wait', place: 'shared' });
		await withRedis.refund(account, 'never-reserved');
		expect([await redisRev(), folderWrites()]).toEqual([rev, writes]);

		// Reserved on the folder alone (Redis away): the next refusal with Redis carries it to Redis.
		const withoutRedis = new SpendLedger({ dir, redis: await awayRedis() });
		expect(await withoutRedis.reserve(account, request('machine-only', { jobs: 3 }))).toMatchObject({ kind: 'reserved', place: 'machine' });
		expect(await withRedis.reserve(account, request('refused-again', { jobs: 3 }))).toMatchObject({ kind: 'refused', place: 'shared' });
		expect(Number(await redisRev())).toBe(Number(rev) + 1);
		const elsewhere = new SpendLedger({ dir: folder(), redis: await liveRedis() });
		expect((await elsewhere.balance(account)).spent.jobs).toBe(3);

		// Another machine reserved: the next refusal here writes no Redis, and brings the folder what Redis holds.
		expect(await elsewhere.reserve(account, request('other-machine', { jobs: 4 }))).toMatchObject({ kind: 'reserved', place: 'shared' });
		expect(await withRedis.reserve(account, request('refused-last', { jobs: 4 }))).toMatchObject({ kind: 'refused', place: 'shared' });
		expect(Number(await redisRev())).toBe(Number(rev) + 2);
		expect((await withRedis.file.read(account)).entries.map((entry) => entry.id)).toContain('other-machine');
	} finally {
		renames.mockRestore();
		direct.disconnect();
	}
});

it('a damaged folder ledger: rewritten from Redis while Redis answers; refused, naming the file, when it does not', async () => {
	const dir = folder();
	const account = newAccount();
	const withRedis = new SpendLedger({ dir, redis: await liveRedis() });
	await withRedis.reserve(account, request('before', { jobs: 5 }));
	writeFileSync(withRedis.file.fileOf(account), '{"v":1,"rev":3,"entries":[{"id":"x"'); // cut short

	expect(await withRedis.reserve(account, request('while-damaged', { jobs: 5 }))).toMatchObject({ kind: 'reserved', place: 'shared' });
	expect((await withRedis.file.read(account)).entries.map((entry) => entry.id).sort()).toEqual(['before', 'while-damaged']);

	writeFileSync(withRedis.file.fileOf(account), 'not json');
	const withoutRedis = new SpendLedger({ dir, redis: await awayRedis() });
	const refused = await withoutRedis.reserve(account, request('no-redis', { jobs: 5 })).then(
		() => undefined,
		(error: unknown) => error,
	);
	expect(refused).toBeInstanceOf(LedgerUnusableError);
	expect((refused as Error).message).toContain(withoutRedis.file.fileOf(account));
});

it('a folder that cannot be made (its parent is a file): Redis alone while it answers, said once; refused without Redis', async () => {
	const parent = path.join(folder(), 'a-file');
	writeFileSync(parent, '');
	const dir = path.join(parent, 'spend');
	const account = newAccount();
	const warnings: string[] = [];
	const withRedis = new SpendLedger({ dir, redis: await liveRedis(), warn: (message) => warnings.push(message) });

	expect(await withRedis.reserve(account, request('one', { jobs: 2 }))).toMatchObject({ kind: 'reserved', place: 'shared' });
	expect(await withRedis.reserve(account, request('two', { jobs: 2 }))).toMatchObject({ kind: 'reserved', place: 'shared' });
	expect(await withRedis.reserve(account, request('three', { jobs: 2 }))).toMatchObject({ kind: 'refused', place: 'shared' });
	expect(warnings).toHaveLength(1);
	expect(warnings[0]).toMatch(/local mirror of the spend ledger could not be written .*could not be created/);

	const withoutRedis = new SpendLedger({ dir, redis: await awayRedis() });
	await expect(withoutRedis.reserve(account, request('four', { jobs: 2 }))).rejects.toBeInstanceOf(LedgerUnusableError);
});

it('a folder ledger whose lock live processes hold the whole wait: refused, as without Redis; nothing is granted in Redis alone', async () => {
	const dir = folder();
	const account = newAccount();
	const withRedis = new SpendLedger({ dir, redis: await liveRedis() });
	await withRedis.refund(account, 'nothing'); // makes the folder, as any first change does
	// A live holder (it touches the lock, so it never goes stale), as a long queue of other processes' changes would.
	let release!: () => void;
	const holding = new Promise<void>((resolve) => (release = resolve));
	await new Promise<void>((locked) => void new FileLedger(dir).locked(account, async () => (locked(), await holding)));
	try {
		const outcome = await withRedis.reserve(account, request('while-busy', { jobs: 5 })).then(
			(reserved) => reserved.place,
			(error: unknown) => error,
		);
		expect(outcome).toBeInstanceOf(LedgerUnusableError);
		expect((outcome as Error).message).toMatch(/could not be locked \(ELOCKED\)/);
	} finally {
		release();
	}
	const elsewhere = new SpendLedger({ dir: folder(), redis: await liveRedis() });
	expect((await elsewhere.balance(account)).spent.jobs).toBe(0);
}, 90_000);

it('Redis restarted empty: each machine merges its folder ledger back, so the next reservation on either counts both machines (limit holds)', async () => {
	const account = newAccount();
	const a = new SpendLedger({ dir: folder(), redis: await liveRedis() });
	const b = new SpendLedger({ dir: folder(), redis: await liveRedis() });
	expect(await a.reserve(account, request('on-a', { jobs: 3 }))).toMatchObject({ kind: 'reserved', place: 'shared' });
	expect(await b.reserve(account, request('on-b', { jobs: 3 }))).toMatchObject({ kind: 'reserved', place: 'shared' });
	await Promise.all([a.idle(), b.idle()]);
	await redis.kill();
	await redis.restart(); // empty: both entries are gone there
	const [aRedis, bRedis] = opened.slice(-2);
	await until(() => aRedis.usable() && bRedis.usable(), 'both machines reach Redis again');
	await until(async () => {
		await Promise.all([a.idle(), b.idle()]);
		const watcher = redis.client();
		try {
			return (await watcher.keys('*')).length > 0;
		} finally {
			watcher.disconnect();
		}
	}, 'a machine wrote to the restarted Redis');
	await Promise.all([a.idle(), b.idle()]);
	// b (the machine that did not reserve since) had its entry put back: a's next reservation is the third, the next one refused.
	expect(await a.reserve(account, request('after-a', { jobs: 3 }))).toMatchObject({ kind: 'reserved', spent: { jobs: 3 } });
	expect(await b.reserve(account, request('after-b', { jobs: 3 }))).toMatchObject({ kind: 'refused', limit: 'jobs' });
});

it('Redis restarted empty: a machine that had nothing of the account waits (restartSettled) until the others put their spend back, then is refused at the limit', async () => {
	const account = newAccount();
	const a = new SpendLedger({ dir: folder(), redis: await liveRedis() });
	const b = new SpendLedger({ dir: folder(), redis: await liveRedis() });
	const limits = { jobs: 3 };
	for (const id of ['a1', 'a2', 'a3']) expect(await a.reserve(account, request(id, limits))).toMatchObject({ kind: 'reserved', place: 'shared' });
	await a.idle();
	await b.restartSettled(); // b looks at this server once (a fresh one: b waits out its start)
	await redis.kill();
	await redis.restart(); // empty: a's three are gone there, and b's folder never held them
	const bRedis = opened[opened.length - 1];
	await until(() => bRedis.usable(), 'machine b reaches Redis again', { everyMs: 1 });
	// Right away, as a job's POST would: b waits until the restart is RESTART_NOTICED_MS behind; a merged back meanwhile.
	await b.restartSettled();
	expect(await b.reserve(account, request('b1', limits))).toMatchObject({ kind: 'refused', limit: 'jobs', place: 'shared', spent: { jobs: 3 } });
	await Promise.all([a.idle(), b.idle()]);
});

it('Redis restarted empty before a machine\'s process started: its first change merges every account of its folder back', async () => {
	const account = newAccount();
	const dirB = folder();
	const a = new SpendLedger({ dir: folder(), redis: await liveRedis() });
	const b = new SpendLedger({ dir: dirB, redis: await liveRedis() });
	await a.reserve(account, request('first-a', { jobs: 3 }));
	await b.reserve(account, request('first-b', { jobs: 3 }));
	await Promise.all([a.idle(), b.idle()]);
	for (const ended of opened.slice(-2)) await ended.close(); // both processes ended
	await redis.kill();
	await redis.restart();
	// A process of machine B started after the restart (it never saw the old server), busy with another account.
	const later = new SpendLedger({ dir: dirB, redis: await liveRedis() });
	await later.reserve(newAccount(), request('other-account', { jobs: 3 }));
	await later.idle();
	const inRedis = await new RedisLedger(await liveRedis()).read(account);
	// b's folder mirrored Redis (a's entry too): both are back
	expect(inRedis.ok && inRedis.value.entries.map((entry) => entry.id).sort()).toEqual(['first-a', 'first-b']);
});

it('what a machine spent while Redis refused writes (out of memory: it answered, no outage) reaches Redis once it takes writes again, with no further change', async () => {
	const account = newAccount();
	const connection = await liveRedis();
	replayQueueOf(connection, 50); // this connection's queue tries again every 50 ms (default 5 s)
	const machineA = new SpendLedger({ dir: folder(), redis: connection });
	const machineB = new SpendLedger({ dir: folder(), redis: await liveRedis() });
	const limits = { jobs: 2 };
	const admin = redis.client();
	try {
		await admin.config('SET', 'maxmemory', '1'); // every write refused: "OOM command not allowed"
		expect(await machineA.reserve(account, request('while-refused', limits))).toMatchObject({ kind: 'reserved', place: 'machine' });
		expect(connection.usable()).toBe(true); // an error answer is no outage: no "answers again" will come
		expect((await machineB.balance(account)).spent.jobs).toBe(0);
		await admin.config('SET', 'maxmemory', '0');
		await until(async () => (await machineB.balance(account)).spent.jobs === 1, "machine A's job is in the ledger in Redis");
		expect(await machineB.reserve(account, request('b', limits))).toMatchObject({ kind: 'reserved', place: 'shared' });
		expect(await machineB.reserve(account, request('over', limits))).toMatchObject({ kind: 'refused', limit: 'jobs', place: 'shared' });
	} finally {
		await admin.config('SET', 'maxmemory', '0');
		admin.disconnect();
	}
});
