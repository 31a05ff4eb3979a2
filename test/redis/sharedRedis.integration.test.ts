/**
 * SharedRedis against a real redis-server frozen with SIGSTOP (the socket stays open, nothing answers): the
 * command in flight resolves "not usable" at its deadline instead of hanging, later commands are not sent at
 * all, one warning says so (log and report); after SIGCONT a background probe finds Redis again and commands
 * run. A deadline missed because this process's event loop was held up (Redis answered in time) is no outage. A short command deadline goes through the constructor (tests only; production uses 2 s).
 */
import type { Redis } from 'ioredis';

import type { SharedRedis } from '../../src/redis';
import type { TestRedis } from '../support/redisServer';
import { startTcpBlackhole } from '../support/tcpBlackhole';
import { until } from '../support/until';
import { sharedRedisAt } from './sharedRedisAt';
import { useRedisServer } from './useRedisServer';

let redis: TestRedis;
useRedisServer((started) => (redis = started));

let shared: SharedRedis;
let warned: string[];
let informed: string[];
beforeEach(() => {
	warned = [];
	informed = [];
	shared = sharedRedisAt(redis.url, { warn: (m) => warned.push(m), info: (m) => informed.push(m), commandTimeoutMs: 300, probeEveryMs: 50 });
});
afterEach(async () => {
	if (redis.frozen()) redis.thaw();
	await shared.close();
});

describe('a Redis that stops answering on an open connection', () => {
	it('is noticed at the first deadline, then skipped without sending; one warning; usable again after SIGCONT', async () => {
		expect(await shared.run(async (client) => await client.set('k', 'before'))).toEqual({ ok: true, value: 'OK' });

		redis.freeze();
		const stalled = await shared.run(async (client) => await client.get('k'));
		expect(stalled).toEqual({ ok: false, reason: 'Command timed out' });
		expect(shared.usable()).toBe(false);

		// Later callers are not sent to the frozen server at all: the command function never runs.
		let sent = 0;
		const skipped = await Promise.all(Array.from({ length: 20 }, () => shared.run(async (client: Redis) => (sent++, await client.get('k')))));
		expect(skipped.every((r) => !r.ok)).toBe(true);
		expect(sent).toBe(0);
		expect(await shared.eval('return 1', [], [])).toMatchObject({ ok: false });

		expect(warned).toEqual([expect.stringMatching(/^Redis at 127\.0\.0\.1:\d+ stopped answering \(no reply within 0\.3 s\): jobs run on per-process limits .* and the local journal until it answers again/)]);
		expect(shared.warnings()).toEqual(warned);
		expect(redis.frozen()).toBe(true); // all of the above happened while Redis was still frozen

		redis.thaw();
		await until(() => shared.usable(), 'the probe finds Redis again');
		expect(await shared.run(async (client) => await client.get('k'))).toEqual({ ok: true, value: 'before' });
		expect(await shared.eval("return redis.call('GET', KEYS[1])", ['k'], [])).toEqual({ ok: true, value: 'before' });
		expect(informed).toEqual([expect.stringMatching(/answers again/)]);
		expect(warned).toHaveLength(1);
		expect(shared.warnings()).toEqual([expect.stringMatching(/was unreachable for a while \(no reply within 0\.3 s\): .* it is back/)]);
	});

	it('frozen past three deadlines: the silent connection is replaced, and once thawed Redis is used again (one warning, one "answers again")', async () => {
		let reconnects = 0;
		shared.client.on('reconnecting', () => reconnects++);
		expect(await shared.run(async (client) => await client.set('k', 'before'))).toEqual({ ok: true, value: 'OK' });
		redis.freeze();
		expect(await shared.run(async (client) => await client.get('k'))).toEqual({ ok: false, reason: 'Command timed out' });
		await until(() => reconnects > 0, 'the silent connection is replaced');
		expect(redis.frozen()).toBe(true);
		redis.thaw();
		await until(() => shared.usable(), 'Redis answers on a new connection');
		expect(await shared.run(async (client) => await client.get('k'))).toEqual({ ok: true, value: 'before' });
		expect(warned).toEqual([expect.stringMatching(/stopped answering/)]);
		expect(informed).toEqual([expect.stringMatching(/answers again/)]);
	});

	it('a deadline missed because this process was held up (Redis answered in time) is no outage: that command fails, nothing else changes', async () => {
		let ups = 0;
		shared.onUp(() => ups++);
		expect(await shared.run(async (client) => await client.set('k', 'v'))).toEqual({ ok: true, value: 'OK' });
		const late = shared.run(async (client) => await client.get('k'));
		await new Promise((resolve) => setImmediate(resolve)); // the GET is on the wire
		holdUpEventLoop(1000); // past the 300 ms deadline (and time enough for Redis to answer): the timer fires before the waiting reply is read
		expect(await late).toEqual({ ok: false, reason: 'Command timed out' });

		expect(shared.usable()).toBe(true);
		expect(warned).toEqual([]);
		expect(shared.warnings()).toEqual([]);
		expect(ups).toBe(0);
		expect(await shared.run(async (client) => await client.get('k'))).toEqual({ ok: true, value: 'v' });
	});

	it('a command whose deadline passed before Redis crashed is not sent again to the Redis that comes back (its caller has moved on)', async () => {
		expect(await shared.run(async (client) => await client.set('k', 'before'))).toEqual({ ok: true, value: 'OK' });
		redis.freeze();
		// Written to the socket, never answered: its caller falls back (a claim taken in the folder, spend counted per machine).
		expect(await shared.run(async (client) => await client.set('late', 'stale'))).toEqual({ ok: false, reason: 'Command timed out' });
		await redis.kill(); // a crash of the frozen server: the connection closes with the SET unanswered
		await redis.restart();
		await until(() => shared.usable(), 'the probe finds the restarted Redis');
		// ioredis resends a closed connection's unanswered commands on reconnect by default; that SET would come first.
		expect(await shared.run(async (client) => await client.get('late'))).toEqual({ ok: true, value: null });
		expect(await shared.run(async (client) => await client.dbsize())).toEqual({ ok: true, value: 0 });
	});

	it('a Redis error reply is not an outage: the caller gets { ok: false }, Redis stays usable', async () => {
		await shared.run(async (client) => await client.set('text', 'x'));
		const wrongType = await shared.run(async (client) => await client.lpush('text', 'y'));
		expect(wrongType).toMatchObject({ ok: false, reason: expect.stringMatching(/WRONGTYPE/) });
		expect(shared.usable()).toBe(true);
		expect(warned).toEqual([]);
	});

	it('an error that is not Redis’s (an abort, a bug) reaches the caller', async () => {
		await expect(shared.run(async () => Promise.reject(new TypeError('a bug')))).rejects.toThrow('a bug');
		expect(shared.usable()).toBe(true);
	});
});

describe('a connection whose path to Redis vanished (no FIN, no RST: its host or container gone, a partition)', () => {
	it('is replaced by a new one once the silence outlasts three deadlines, so a Redis reachable again is used again (not after TCP gives up, about 15 minutes later)', async () => {
		const relay = await startTcpBlackhole(redis.port);
		const viaRelay = sharedRedisAt(`redis://127.0.0.1:${relay.port}`, { warn: (m) => warned.push(m), info: (m) => informed.push(m), commandTimeoutMs: 300, probeEveryMs: 50 });
		try {
			expect(await viaRelay.run(async (client) => await client.set('k', 'through the relay'))).toEqual({ ok: true, value: 'OK' });
			relay.blackhole(); // the open connection carries nothing from now on and never closes; a new one reaches Redis
			expect(await viaRelay.run(async (client) => await client.get('k'))).toEqual({ ok: false, reason: 'Command timed out' });
			expect(viaRelay.usable()).toBe(false);
			await until(() => viaRelay.usable(), 'a new connection answers');
			expect(relay.accepted()).toBe(2);
			// Closed by an RST, not a FIN: a reset socket's kernel drops what it has not delivered (the GET) instead of retransmitting it after a healed partition, behind the new connection's writes (the relay cannot show that part).
			expect(relay.closings()).toEqual(['reset']);
			expect(await viaRelay.run(async (client) => await client.get('k'))).toEqual({ ok: true, value: 'through the relay' });
			expect(warned).toEqual([expect.stringMatching(/stopped answering \(no reply within 0\.3 s\)/)]);
			expect(informed).toEqual([expect.stringMatching(/answers again/)]);
		} finally {
			await viaRelay.close();
			await relay.close();
		}
	});
});

/** Keeps this process busy for `ms`, as a long synchronous task in n8n's process would (the point is the held-up loop, not the time). */
function holdUpEventLoop(ms: number): void {
	const end = Date.now() + ms;
	while (Date.now() < end) {
		// busy on purpose
	}
}
