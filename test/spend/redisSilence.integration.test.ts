/**
 * Redis frozen (SIGSTOP on a real redis-server) while three processes of one machine change one account's ledger:
 * the first waits one Redis deadline holding the folder's lock and notes it in the folder; the others, seeing the
 * note, use the folder's ledger at once instead of each waiting a deadline of its own under the lock (N processes ×
 * 2 s went past the lock's 30 s budget and refused every job). Once Redis answers again, the note goes and all of
 * them are back on Redis, with what they spent meanwhile. Each ledger has its own connection, as separate processes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { SharedRedis } from '../../src/redis';
import { SpendLedger } from '../../src/spend';
import { sharedRedisAt } from '../redis/sharedRedisAt';
import { useRedisServer } from '../redis/useRedisServer';
import type { TestRedis } from '../support/redisServer';

let redis: TestRedis;
useRedisServer((started) => (redis = started));

const opened: SharedRedis[] = [];
const folders: string[] = [];
afterEach(() => {
	if (redis.frozen()) redis.thaw();
});
afterAll(async () => {
	await Promise.all(opened.map(async (client) => await client.close()));
	for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

async function liveRedis(): Promise<SharedRedis> {
	const client = sharedRedisAt(redis.url, { commandTimeoutMs: 1000 });
	opened.push(client);
	await client.ready();
	return client;
}

const ACCOUNT = 'f'.repeat(32);
const request = (id: string) => ({ id, priceKey: 'flux-3-image:silence', listPrice: 4, limits: { jobs: 10 }, blockMs: 60_000 });

it('Redis frozen: one process of the machine waits its deadline under the lock, the others use the folder at once; all return to Redis after', async () => {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'flux-spend-silence-'));
	folders.push(dir);
	const processes = await Promise.all(
		[0, 1, 2].map(async () => {
			const connection = await liveRedis();
			const warnings: string[] = [];
			return { connection, warnings, ledger: new SpendLedger({ dir, redis: connection, warn: (message) => warnings.push(message) }) };
		}),
	);
	expect(await processes[0].ledger.reserve(ACCOUNT, request('before'))).toMatchObject({ kind: 'reserved', place: 'shared' });

	redis.freeze();
	const during = await Promise.all(processes.map(async ({ ledger }, i) => await ledger.reserve(ACCOUNT, request(`frozen-${i}`))));
	expect(during.map((outcome) => [outcome.kind, outcome.place])).toEqual([0, 1, 2].map(() => ['reserved', 'machine']));
	// One connection sent a command that found Redis silent; the other two sent none (they did not wait for Redis).
	const waited = processes.filter(({ connection }) => !connection.usable());
	const skipped = processes.filter(({ connection }) => connection.usable());
	expect(waited).toHaveLength(1);
	expect(waited[0].warnings.join('\n')).toMatch(/could not be used \(Command timed out\)/);
	for (const { warnings } of skipped) expect(warnings.join('\n')).toMatch(/another process of this machine found it silent/);
	expect((await processes[0].ledger.file.read(ACCOUNT)).entries).toHaveLength(4);

	const back = new Promise<void>((resolve) => waited[0].connection.onUp(resolve));
	redis.thaw();
	await back;
	await waited[0].ledger.idle(); // its sync on Redis's return: it brings the folder's reservations to Redis and the note goes
	for (const [i, { ledger }] of skipped.entries()) expect(await ledger.reserve(ACCOUNT, request(`after-${i}`))).toMatchObject({ kind: 'reserved', place: 'shared' });
	expect((await processes[0].ledger.balance(ACCOUNT)).spent).toEqual({ credits: 24, jobs: 6 });
});
