/**
 * The Redis records (src/coordination/redisRecords.ts) on a real redis-server: the RecordStore contract (two
 * processes on one record included; a write is counted from Redis's keyspace notifications); a frozen Redis
 * (SIGSTOP) answers `{ ok: false }` within one deadline; the replay queue replays what Redis missed, in order, when
 * it answers again; a spend ledger written by the previous version (the value and its `…:rev` key) is read and
 * changed.
 */
import * as path from 'node:path';
import type { Redis } from 'ioredis';

import { RedisRecords } from '../../src/coordination/redisRecords';
import { replayQueueOf } from '../../src/coordination/replayQueue';
import type { SharedRedis } from '../../src/redis';
import { emptyLedger, RedisLedger } from '../../src/spend';
import { sharedRedisAt } from '../redis/sharedRedisAt';
import { useRedisServer } from '../redis/useRedisServer';
import type { TestRedis } from '../support/redisServer';
import { describeRecordStoreContract, increment } from './recordStoreContract';

let redis: TestRedis;
useRedisServer((started) => (redis = started));

const connections: SharedRedis[] = [];
const clients: Redis[] = [];
afterEach(async () => {
	if (redis.frozen()) redis.thaw();
	for (const connection of connections.splice(0)) await connection.close();
	for (const client of clients.splice(0)) client.disconnect();
});

async function connect(commandTimeoutMs = 2000): Promise<SharedRedis> {
	const connection = sharedRedisAt(redis.url, { commandTimeoutMs, probeEveryMs: 50 });
	connections.push(connection);
	await connection.ready();
	return connection;
}

let stores = 0;

describeRecordStoreContract(
	'RedisRecords',
	async () => {
		const prefix = `contract:${++stores}:`;
		const store = new RedisRecords(await connect(), prefix);
		// Every event on the store's keys (set, del, expire), counted; a PING on the subscriber: all delivered.
		const events = redis.client();
		clients.push(events);
		await events.config('SET', 'notify-keyspace-events', 'KA');
		const counts = new Map<string, number>();
		events.on('pmessage', (_pattern: string, channel: string) => counts.set(channel, (counts.get(channel) ?? 0) + 1));
		await events.psubscribe(`__keyspace@0__:${prefix}*`);
		return {
			store,
			inChild: { module: path.join(__dirname, 'fixtures', 'redisRecordsStore.ts'), arg: { url: redis.url, prefix } },
			writeMark: async (name) => {
				await events.ping();
				return String(counts.get(`__keyspace@0__:${prefix}${name}`) ?? 0);
			},
		};
	},
	{ processes: true },
);

it('writes a changed text with its lease (PX), and removes it', async () => {
	const store = new RedisRecords(await connect(), 'lease:');
	expect(await store.update('r', () => ({ text: 'held', result: 1 }), { ttlMs: 60_000 })).toEqual({ ok: true, value: 1 });
	const direct = redis.client();
	clients.push(direct);
	const ttl = await direct.pttl('lease:r');
	expect(ttl).toBeGreaterThan(0);
	expect(ttl).toBeLessThanOrEqual(60_000);
	expect(await store.update('r', () => ({ text: undefined, result: 2 }))).toEqual({ ok: true, value: 2 });
	expect(await direct.exists('lease:r')).toBe(0);
});

it('Redis frozen (SIGSTOP): an update answers { ok: false } within one deadline, and the next one at once; nothing is written', async () => {
	const store = new RedisRecords(await connect(300), 'frozen:');
	expect(await store.update('r', increment)).toEqual({ ok: true, value: 1 });
	redis.freeze();
	expect(await store.update('r', increment)).toMatchObject({ ok: false });
	expect(await store.update('r', increment)).toEqual({ ok: false, reason: 'Redis is not usable' });
	redis.thaw();
	const reader = new RedisRecords(await connect(), 'frozen:');
	expect(await reader.read('r')).toEqual({ ok: true, value: '1' });
});

it('the replay queue replays what Redis missed, in order, once it answers again; a replay that fails stays queued', async () => {
	const connection = await connect(300);
	const store = new RedisRecords(connection, 'replay:');
	const queue = replayQueueOf(connection);
	const order: string[] = [];
	const write = (name: string, text: string) => async () => {
		const done = await store.update('log', (now) => ({ text: `${now ?? ''}${text}`, result: undefined }));
		if (done.ok) order.push(name);
		return done.ok;
	};
	redis.freeze();
	expect(await write('probe', 'x')()).toBe(false); // finds it silent: not usable from now on
	queue.put('journal:a', write('journal:a', 'a'));
	queue.put('claim:a', write('claim:a', 'b'));
	queue.put('journal:b', write('journal:b', 'c'));
	queue.put('journal:a', write('journal:a', 'A')); // the latest of a name replaces it, at the end
	await queue.replay(); // still frozen: the first fails and stays queued, nothing behind it runs
	expect([order, queue.size]).toEqual([[], 3]);
	const back = new Promise<void>((resolve) => connection.onUp(resolve));
	redis.thaw();
	await back;
	await queue.replay(); // the one started by its return, then this one
	expect(order).toEqual(['claim:a', 'journal:b', 'journal:a']);
	expect(queue.size).toBe(0);
	expect(await store.read('log')).toEqual({ ok: true, value: 'bcA' });
});

it('a spend ledger written by the previous version (its value and a `…:rev` key) is read, and changed on the value', async () => {
	const account = 'e'.repeat(32);
	const direct = redis.client();
	clients.push(direct);
	const old = { ...emptyLedger(), rev: 7, entries: [{ id: 'old', at: Date.now(), credits: 4, state: 'final' as const, priceKey: 'flux-3-image:x' }] };
	await direct.set(RedisLedger.keyOf(account), JSON.stringify(old), 'PX', 60_000);
	await direct.set(`${RedisLedger.keyOf(account)}:rev`, '7', 'PX', 60_000);
	const ledger = new RedisLedger(await connect());
	expect(await ledger.read(account)).toEqual({ ok: true, value: old });
	const changed = await ledger.update(account, (state) => ({ state: { ...state, rev: state.rev + 1, entries: [...state.entries, { ...state.entries[0], id: 'new' }] }, result: 'ok' }));
	expect(changed).toMatchObject({ ok: true, value: { result: 'ok' } });
	const stored = JSON.parse((await direct.get(RedisLedger.keyOf(account))) ?? '{}') as { entries: Array<{ id: string }> };
	expect(stored.entries.map((entry) => entry.id)).toEqual(['old', 'new']);
	expect(await direct.get(`${RedisLedger.keyOf(account)}:rev`)).toBe('8'); // counted up for the previous version's writers
});

/** The previous version's ledger write: compare-and-set on the `…:rev` key it read (its script, as it shipped). */
const PREVIOUS_COMPARE_AND_SET = `
local rev = tonumber(redis.call('GET', KEYS[2]) or '0')
if rev ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[4])
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
return 1
`;

it('during a rolling upgrade neither version overwrites the other: a previous-version write based on what it read before this version wrote is refused', async () => {
	const account = 'f'.repeat(32);
	const key = RedisLedger.keyOf(account);
	const direct = redis.client();
	clients.push(direct);
	const entry = (id: string) => ({ id, at: Date.now(), credits: 4, state: 'final' as const, priceKey: 'flux-3-image:x' });
	const ledger = new RedisLedger(await connect());
	await ledger.update(account, (state) => ({ state: { ...state, entries: [...state.entries, entry('first')] }, result: undefined }));
	// The previous version reads value and revision, then this version writes, then the previous one tries its write.
	const [text, rev] = await direct.mget(key, `${key}:rev`);
	await ledger.update(account, (state) => ({ state: { ...state, entries: [...state.entries, entry('new')] }, result: undefined }));
	const theirs = { ...(JSON.parse(text!) as object), entries: [entry('first'), entry('old')] };
	const oldWrite = async (read: string | null) => await direct.eval(PREVIOUS_COMPARE_AND_SET, 2, key, `${key}:rev`, Number(read ?? 0), JSON.stringify(theirs), Number(read ?? 0) + 1, 60_000);
	expect(await oldWrite(rev)).toBe(0); // refused: it re-reads and applies its change to what is there now
	const [, now] = await direct.mget(key, `${key}:rev`);
	expect(await oldWrite(now)).toBe(1);
	// And this version sees the previous one's write (by the value itself) and changes on top of it.
	await ledger.update(account, (state) => ({ state: { ...state, entries: [...state.entries, entry('after')] }, result: undefined }));
	const stored = JSON.parse((await direct.get(key)) ?? '{}') as { entries: Array<{ id: string }> };
	expect(stored.entries.map((e) => e.id)).toEqual(['first', 'old', 'after']);
});
