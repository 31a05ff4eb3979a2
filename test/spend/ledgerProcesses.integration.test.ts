/**
 * Reservations are atomic across real OS processes: three processes race for one account's daily limit on one
 * store folder (the file ledger under its lock), and three processes with folders of their own race through one
 * real redis-server (the Redis ledger): together they never reserve more than the limit. A process killed with
 * SIGKILL between its reservation and its send leaves the reservation counted (it may have been sent).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { SpendLedger, spentIn, systemClock } from '../../src/spend';
import { useRedisServer } from '../redis/useRedisServer';
import { nextReply, startWorkers } from '../support/forkedWorkers';
import type { TestRedis } from '../support/redisServer';

const FIXTURE = path.join(__dirname, 'fixtures', 'ledgerWorker.ts');
// Each test forks ts-node processes (seconds each to start on a busy machine).
jest.setTimeout(180_000);
type Reply = { phase: string; reserved?: number; waits?: number; places?: string[]; error?: string };

let redis: TestRedis;
useRedisServer((started) => (redis = started));

const folders: string[] = [];
const children: ChildProcess[] = [];
const folder = () => {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'flux-spend-'));
	folders.push(dir);
	return dir;
};
afterEach(() => {
	for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(() => {
	for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

async function startLedgerWorkers(commands: object[]): Promise<ChildProcess[]> {
	const { workers, replies } = await startWorkers<Reply>(FIXTURE, commands, children);
	expect(replies.map((r) => r.phase)).toEqual(commands.map(() => 'ready'));
	return workers;
}

async function race(workers: ChildProcess[]): Promise<Reply[]> {
	const done = workers.map((worker) => nextReply<Reply>(worker));
	for (const worker of workers) worker.send('go');
	return await Promise.all(done);
}

const ACCOUNT = 'a'.repeat(32);

it('three processes on one store folder: a 40-credit limit at 4 credits buys exactly 10 in all', async () => {
	const dir = folder();
	const command = { dir, account: ACCOUNT, limits: { credits: 40 }, cost: 4, listPrice: 4, mode: 'race' };
	const replies = await race(await startLedgerWorkers([command, command, command]));
	expect(replies.reduce((sum, r) => sum + (r.reserved ?? 0), 0)).toBe(10);
	const ledger = new SpendLedger({ dir });
	expect(await ledger.balance(ACCOUNT)).toMatchObject({ spent: { credits: 40, jobs: 10 }, place: 'shared' });
});

it('three processes on one store folder: a job limit of 25 buys exactly 25 in all', async () => {
	const jobs = { dir: folder(), account: ACCOUNT, limits: { jobs: 25 }, cost: 4, listPrice: 4, mode: 'race' };
	const byJobs = await race(await startLedgerWorkers([jobs, jobs, jobs]));
	expect(byJobs.reduce((sum, r) => sum + (r.reserved ?? 0), 0)).toBe(25);
});

it('three processes with the price unknown: they go one at a time until the first answer, and still buy exactly 10', async () => {
	const dir = folder();
	const command = { dir, account: ACCOUNT, limits: { credits: 40 }, cost: 4, mode: 'race' };
	const replies = await race(await startLedgerWorkers([command, command, command]));
	expect(replies.reduce((sum, r) => sum + (r.reserved ?? 0), 0)).toBe(10);
	const state = await new SpendLedger({ dir }).file.read(ACCOUNT);
	expect(spentIn(state, systemClock())).toEqual({ credits: 40, jobs: 10 });
	expect(state.prices['flux-3-image:race'].credits).toBe(4);
});

it('three processes with folders of their own share the limit through one redis-server', async () => {
	const commands = [0, 1, 2].map(() => ({ dir: folder(), redisUrl: redis.url, account: 'b'.repeat(32), limits: { credits: 40 }, cost: 4, listPrice: 4, mode: 'race' }));
	const replies = await race(await startLedgerWorkers(commands));
	expect(replies.reduce((sum, r) => sum + (r.reserved ?? 0), 0)).toBe(10);
	for (const reply of replies) expect(reply.places).toEqual(['shared']);
	const client = redis.client();
	try {
		const stored = JSON.parse((await client.get(`flux-concurrent:spend:${'b'.repeat(32)}`)) ?? '{}') as { entries: Array<{ credits: number }> };
		expect(stored.entries).toHaveLength(10);
		expect(stored.entries.reduce((sum, e) => sum + e.credits, 0)).toBe(40);
	} finally {
		client.disconnect();
	}
});

it('a process killed (SIGKILL) between its reservation and its send leaves the reservation counted', async () => {
	const dir = folder();
	const [worker] = await startLedgerWorkers([{ dir, account: ACCOUNT, limits: { jobs: 3 }, cost: 4, listPrice: 4, mode: 'hold' }]);
	const held = nextReply<Reply>(worker);
	worker.send('go');
	expect(await held).toMatchObject({ phase: 'held', reserved: 1 });
	const exited = new Promise((resolve) => worker.once('exit', resolve));
	worker.kill('SIGKILL');
	await exited;
	const ledger = new SpendLedger({ dir });
	expect((await ledger.balance(ACCOUNT)).spent).toEqual({ credits: 4, jobs: 1 });
	const after = await race(await startLedgerWorkers([{ dir, account: ACCOUNT, limits: { jobs: 3 }, cost: 4, listPrice: 4, mode: 'race' }]));
	expect(after[0].reserved).toBe(2);
});
