/**
 * Claims through a real redis-server (src/store/claims/redisClaims.ts), for processes whose store folders are
 * not shared: one owner per key across folders, a frozen Redis (SIGSTOP) falls back to the folder claim once the
 * outage is past the grace, a Redis down for less than that (a restart) hands a new key to one process only, a
 * Redis restarted empty does not hand a held key to a second claimant (the owner asserts it again, new claims wait
 * out the grace, also in a process that first reaches Redis after its restart), and a claim of a dead process on
 * this machine is taken over at once.
 */
import { mkdtempSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { SharedRedis } from '../../src/redis';
import { thisOwner } from '../../src/coordination/ownerLiveness';
import { Claims, DEFAULT_CLAIM_TIMING, type ClaimHandle } from '../../src/store/claims/claims';
import { Wakeups } from '../../src/coordination/wakeups';
import { CLAIM_REDIS_PREFIX, RedisClaims } from '../../src/store/claims/redisClaims';
import { sharedRedisAt } from '../redis/sharedRedisAt';
import { useRedisServer } from '../redis/useRedisServer';
import type { TestRedis } from '../support/redisServer';
import { until } from '../support/until';

let redis: TestRedis;
useRedisServer((started) => (redis = started));

const connections: SharedRedis[] = [];
afterEach(async () => {
	if (redis.frozen()) redis.thaw();
	for (const c of connections.splice(0)) await c.close();
});

const TIMING = { heartbeatMs: 100, redisLeaseMs: 60_000, redisGraceMs: 600, waitMinMs: 5, waitMaxMs: 20 };

/** A process of its own: its own store folder, its own Redis connection, its own owner token. */
function processClaims(name: string, commandTimeoutMs = 2000): Claims {
	const connection = sharedRedisAt(redis.url, { commandTimeoutMs, probeEveryMs: 50 });
	connections.push(connection);
	const folder = mkdtempSync(path.join(os.tmpdir(), `flux-claims-${name}-`));
	return new Claims(folder, { redis: connection, timing: TIMING, owner: { ...thisOwner(), token: `${name}-${Math.random()}` } });
}

async function notYet(promise: Promise<unknown>, ms = 200): Promise<boolean> {
	let settled = false;
	void promise.then(() => (settled = true), () => (settled = true));
	await new Promise((resolve) => setTimeout(resolve, ms));
	return !settled;
}

it('two folders sharing one Redis: one owner per key, the second claimant waits for it', async () => {
	const a = processClaims('a');
	const b = processClaims('b');
	// Both have looked at the server once: a redis-server started for this file is up for less than the grace, so a
	// first claim waits it out (by design), and a claimant still in that wait when the owner lets go never waits for it.
	await Promise.all([a, b].map(async (claims) => await (await claims.acquire(`warm-${Math.random()}`)).release()));
	const first = await a.acquire('shared-key');
	expect(first).toMatchObject({ waited: false, through: { folder: true, redis: true } });
	const second = b.acquire('shared-key');
	expect(await notYet(second)).toBe(true);
	await first.release();
	expect(await second).toMatchObject({ waited: true, through: { folder: true, redis: true } });
	await (await second).release();
});

it('Redis frozen (SIGSTOP): a claim waits for it while the outage is younger than the grace, then falls back to the folder, and later ones at once', async () => {
	const a = processClaims('frozen', 300);
	await (await a.acquire('warm')).release(); // connected
	redis.freeze();
	const pending = a.acquire('during-freeze');
	expect(await notYet(pending, 450)).toBe(true); // the deadline (300 ms) is over, the grace (600 ms) is not
	const claim = await pending;
	expect(claim.through).toEqual({ folder: true, redis: false });
	await claim.release();
	const next = await a.acquire('during-freeze-2');
	expect(next.through).toEqual({ folder: true, redis: false });
	await next.release();
	redis.thaw();
});

it('Redis restarted empty while a key is held: a second claimant still waits for the owner (asserted again after the grace)', async () => {
	const a = processClaims('owner');
	const b = processClaims('other');
	const held: ClaimHandle = await a.acquire('kept-key');
	await b.acquire('warm').then((c) => c.release()); // b knows the server's run_id
	await redis.kill();
	await redis.restart(); // an empty Redis: the claim is gone there
	const watcher = redis.client();
	try {
		await until(async () => (await watcher.get(`mutex:${CLAIM_REDIS_PREFIX}kept-key`)) !== null, 'the owner asserted its claim again');
	} finally {
		watcher.disconnect();
	}
	// b's connection answers again too (until then b claims in its folder alone, by design: a Redis it cannot reach
	// must not stop its jobs; on a loaded machine its reconnect can come after the owner's).
	const bConnection = connections[1];
	await until(async () => (await bConnection.run(async (client) => await client.ping()))?.ok === true, 'the second process reached Redis again');
	const second = b.acquire('kept-key');
	expect(await notYet(second, 800)).toBe(true);
	expect(held.held()).toBe(true);
	await held.release();
	expect(await second).toMatchObject({ waited: true, through: { redis: true } });
	await (await second).release();
});

it('a new key asked in two processes while Redis is down for less than the grace (a restart): neither pays on its folder claim alone; once Redis answers, one owns it and the other waits for it', async () => {
	// Own folders, one Redis, a grace of a minute: only Redis can keep the two apart. Restart graces pass at once
	// (this test is about the outage before them).
	const [p, q] = ['down-p', 'down-q'].map((name) => freshRedisClaims(name, 60_000));
	for (const c of [p, q]) c.wakeups.letGo();
	await Promise.all([p, q].map(async (c) => await (await c.claims.acquire(`warm-${Math.random()}`)).claim?.release()));
	await redis.kill();
	const asked = [p, q].map(async (c, i) => ({ i, got: await c.claims.acquire('new-key') }));
	expect(await notYet(Promise.race(asked), 500)).toBe(true); // Redis is down: nobody has the key yet, nobody went on without it
	await redis.restart();
	const first = await Promise.race(asked);
	expect(first.got).toMatchObject({ waited: false });
	expect(first.got.claim).toBeDefined();
	const other = asked[1 - first.i];
	expect(await notYet(other, 300)).toBe(true); // the other waits for the owner
	await first.got.claim?.release();
	const second = (await other).got;
	expect(second).toMatchObject({ waited: true });
	expect(second.claim).toBeDefined();
	await second.claim?.release();
});

it('a Redis claim whose owner process is gone (this machine) is taken over at once, not after its lease', async () => {
	const a = processClaims('live');
	const ghost = { ...thisOwner(), token: 'ghost', pid: 2 ** 22 - 3, start: '1' }; // no such process here
	const client = redis.client();
	try {
		await client.set(`mutex:${CLAIM_REDIS_PREFIX}ghost-key`, `x~${JSON.stringify(ghost)}`, 'PX', 60_000);
	} finally {
		client.disconnect();
	}
	const claim = await a.acquire('ghost-key');
	expect(claim).toMatchObject({ waited: true, through: { redis: true } });
	await claim.release();
});

it('a claimant waiting for an owner elsewhere keeps waiting while Redis is frozen (never sends), and gets the key once Redis answers and the owner lets go', async () => {
	const a = processClaims('holder', 300);
	const b = processClaims('waiter', 300);
	const held = await a.acquire('frozen-key');
	const second = b.acquire('frozen-key');
	expect(await notYet(second)).toBe(true); // waiting for a, through Redis
	redis.freeze();
	expect(await notYet(second, 1500)).toBe(true); // five deadlines later: still waiting, not on its own folder claim alone
	redis.thaw();
	await held.release();
	expect(await second).toMatchObject({ waited: true, through: { folder: true, redis: true } });
	await (await second).release();
});

it('a held claim is renewed by the heartbeat: a fresh lease each beat, so a claimant elsewhere waits past many leases while its owner lives', async () => {
	const timing = { ...TIMING, heartbeatMs: 50, redisLeaseMs: 300 };
	const [a, b] = ['renewing', 'polling'].map((name) => {
		const connection = sharedRedisAt(redis.url, { probeEveryMs: 50 });
		connections.push(connection);
		return new Claims(mkdtempSync(path.join(os.tmpdir(), `flux-claims-${name}-`)), { redis: connection, timing, owner: { ...thisOwner(), token: `${name}-${Math.random()}` } });
	});
	const held = await a.acquire('renewed-key');
	const second = b.acquire('renewed-key'); // tries every 20 ms: a lapse of the lease would hand it the key
	const watcher = redis.client();
	try {
		const beat = async () => (JSON.parse((await watcher.get(`mutex:${CLAIM_REDIS_PREFIX}renewed-key`)) ?? '{"beat":0}') as { beat: number }).beat;
		const first = await beat();
		await until(async () => (await beat()) >= first + 12, 'twelve renewals (two leases at least)');
		expect(held.held()).toBe(true);
		expect(await notYet(second, 0)).toBe(true);
		await held.release();
		expect(await second).toMatchObject({ waited: true, through: { redis: true } });
		await (await second).release();
	} finally {
		watcher.disconnect();
	}
});

it('a claim let go while Redis is frozen is released once Redis answers again (not after its lease): the next claimant gets it', async () => {
	const a = processClaims('away', 300);
	const b = processClaims('next', 300);
	const held = await a.acquire('away-key');
	expect(held.through.redis).toBe(true);
	redis.freeze();
	await held.release(); // Redis silent: the release waits in the replay queue
	redis.thaw();
	const watcher = redis.client();
	try {
		await until(async () => (await watcher.exists(`mutex:${CLAIM_REDIS_PREFIX}away-key`)) === 0, 'the release reached Redis'); // the lease is a minute
	} finally {
		watcher.disconnect();
	}
	const next = await b.acquire('away-key');
	expect(next).toMatchObject({ waited: false, through: { redis: true } });
	await next.release();
});

/** Wake-ups whose restart-grace pauses are recorded and end when the test lets them (no real wait). */
class GatedGrace extends Wakeups {
	readonly graces: number[] = [];
	private open!: () => void;
	private readonly gate = new Promise<void>((resolve) => (this.open = resolve));
	override async pause(key: string, ms: number, signal?: AbortSignal): Promise<void> {
		if (!key.startsWith('redis-grace:')) return await super.pause(key, ms, signal);
		this.graces.push(ms);
		await this.gate;
	}
	letGo(): void {
		this.open();
	}
}

/** A claimant of its own on `grace`, with gated grace pauses. */
function freshRedisClaims(name: string, redisGraceMs: number): { claims: RedisClaims; wakeups: GatedGrace } {
	const connection = sharedRedisAt(redis.url, { probeEveryMs: 50 });
	connections.push(connection);
	const wakeups = new GatedGrace();
	return { claims: new RedisClaims(connection, { ...DEFAULT_CLAIM_TIMING, ...TIMING, redisGraceMs }, wakeups, undefined, { ...thisOwner(), token: `${name}-${Math.random()}` }), wakeups };
}

it('a process that first reaches Redis after it restarted empty (it never saw the old run_id) waits the grace: the owner re-asserts first', async () => {
	const a = processClaims('owner-k');
	const held = await a.acquire('job-K');
	await redis.kill();
	await redis.restart(); // empty: job-K's claim is gone there
	const fresh = freshRedisClaims('started-after', 60_000); // a server up for less than a minute: just restarted
	const second = fresh.claims.acquire('job-K');
	await until(() => fresh.wakeups.graces.length > 0, 'the fresh process waits the grace');
	expect(fresh.wakeups.graces[0]).toBeGreaterThan(0);
	expect(fresh.wakeups.graces[0]).toBeLessThanOrEqual(60_000);
	const watcher = redis.client();
	try {
		await until(async () => (await watcher.get(`mutex:${CLAIM_REDIS_PREFIX}job-K`)) !== null, 'the owner asserted its claim again');
	} finally {
		watcher.disconnect();
	}
	fresh.wakeups.letGo(); // the grace is over: the owner's claim is back, the fresh process waits for it
	expect(await notYet(second)).toBe(true);
	expect(held.held()).toBe(true);
	await held.release();
	const got = await second;
	expect(got).toMatchObject({ waited: true });
	await got.claim?.release();
});

it('a process that first reaches a Redis up for longer than the grace claims at once (no grace)', async () => {
	const watcher = redis.client();
	try {
		await until(async () => Number(/uptime_in_seconds:(\d+)/.exec(await watcher.info('server'))?.[1]) >= 1, 'the server is up for a second');
	} finally {
		watcher.disconnect();
	}
	const fresh = freshRedisClaims('long-running', 1000);
	const got = await fresh.claims.acquire('job-L');
	expect(fresh.wakeups.graces).toEqual([]);
	expect(got).toMatchObject({ waited: false });
	expect(got.claim).toBeDefined();
	await got.claim?.release();
});

it('a claim write that missed its deadline and ran late (Redis frozen in between) is the claimant\'s own: it takes the key at once, not after the lease', async () => {
	const connection = sharedRedisAt(redis.url, { commandTimeoutMs: 300, probeEveryMs: 50 });
	connections.push(connection);
	const folder = mkdtempSync(path.join(os.tmpdir(), 'flux-claims-late-'));
	const claims = new Claims(folder, { redis: connection, timing: { ...TIMING, redisLeaseMs: 60_000, redisGraceMs: 5_000 }, owner: { ...thisOwner(), token: `late-${Math.random()}` } });
	await (await claims.acquire(`warm-${Math.random()}`)).release(); // connected, and the server's start is behind the grace
	// The claim's read is answered; Redis freezes before its compare-and-set arrives, which misses its deadline and runs once Redis thaws.
	const evalOnce = connection.eval.bind(connection);
	let frozen = false;
	connection.eval = async (...args) => {
		if (!frozen) {
			frozen = true;
			redis.freeze();
			setTimeout(() => redis.thaw(), 600); // past the 300 ms deadline, before the silent connection is replaced (3 deadlines after the outage)
		}
		return await evalOnce(...args);
	};
	const claim = await claims.acquire('late-key');
	expect(frozen).toBe(true);
	expect(claim).toMatchObject({ waited: false, through: { folder: true, redis: true } });
	const admin = redis.client();
	try {
		expect(JSON.parse((await admin.get(`mutex:${CLAIM_REDIS_PREFIX}late-key`)) ?? '{}')).toMatchObject({ owner: expect.objectContaining({ pid: process.pid }) });
	} finally {
		admin.disconnect();
	}
	await claim.release();
});

