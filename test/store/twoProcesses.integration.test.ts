/**
 * Two OS processes share one store folder at once (same keys and different keys): no read is torn or mixed,
 * each sees the other's results, and no journal record is lost. Real files in a temp folder.
 */
import { type ChildProcess, fork } from 'node:child_process';
import * as path from 'node:path';
import { openStore } from '../../src/store';
import { blob } from './fixtures/blob';
import { makeTempDir } from './tempStore';

type Reply = { phase: string; stats?: Record<string, number>; warnings?: string[]; health?: unknown; error?: string };
const FIXTURE = path.join(__dirname, 'fixtures', 'storeWorker.ts');
const ROUNDS = 12;

function nextReply(child: ChildProcess): Promise<Reply> {
	return new Promise((resolve, reject) => {
		const onExit = (code: number | null) => reject(new Error(`worker exited early (${code})`));
		child.once('exit', onExit);
		child.once('message', (reply: Reply) => {
			child.off('exit', onExit);
			resolve(reply);
		});
	});
}

function spawnWorker(): ChildProcess {
	return fork(FIXTURE, [], { execArgv: ['-r', 'ts-node/register/transpile-only'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

let temp: ReturnType<typeof makeTempDir>;
let workers: ChildProcess[] = [];
beforeEach(() => {
	temp = makeTempDir();
});
afterEach(() => {
	for (const w of workers) if (w.exitCode === null) w.kill();
	workers = [];
	temp.cleanup();
});

async function phase(names: string[], which: 'write' | 'read' | 'adopt' | 'churn', dir: string, rounds = ROUNDS): Promise<Reply[]> {
	const replies = workers.map((w) => nextReply(w));
	workers.forEach((w, i) => w.send({ phase: which, dir, me: names[i], peers: names.filter((_, j) => j !== i), rounds }));
	return Promise.all(replies);
}

it('two processes write and read the same folder concurrently without corrupt reads or lost journal records', async () => {
	const dir = path.join(temp.dir, 'shared-store');
	const names = ['A', 'B'];
	workers = names.map(() => spawnWorker());
	const ready = await Promise.all(workers.map((w) => nextReply(w)));
	expect(ready.map((r) => r.phase)).toEqual(['ready', 'ready']);

	const written = await phase(names, 'write', dir);
	for (const reply of written) {
		expect(reply.error).toBeUndefined();
		expect(reply.stats).toMatchObject({ puts: 3 * ROUNDS, badReads: 0 });
		expect(reply.stats!.goodReads).toBe(2 * ROUNDS);
		expect(reply.warnings).toEqual([]);
		expect(reply.health).toEqual({ ok: true });
	}

	const read = await phase(names, 'read', dir);
	for (const reply of read) {
		expect(reply.error).toBeUndefined();
		expect(reply.stats).toMatchObject({ goodReads: 2 * ROUNDS, badReads: 0, journalOk: 2 * ROUNDS, journalLost: 0, lsAgrees: 1 });
	}

	// This process (a third one) sees it all too.
	const store = openStore({ dir, maxBytes: 1024 ** 3, ttlMs: 86_400_000 }, { warn: () => undefined });
	const mixed = await store.results.get('shared-mixed');
	expect([blob('A', 'shared-mixed'), blob('B', 'shared-mixed')].some((b) => mixed?.bytes.equals(b))).toBe(true);
	expect((await store.results.get('shared-same'))?.bytes.equals(blob('both', 'shared-same'))).toBe(true);
	const shared = await store.journal.read('shared');
	expect(shared?.state).toBe('submitting');
	expect(shared?.jobId).toMatch(/^job-shared-[AB]-\d+$/);
	for (const name of names) {
		for (let i = 0; i < ROUNDS; i++) {
			expect((await store.journal.findByJobId(`job-shared-${name}-${i}`))?.jobKey).toBe('shared');
		}
	}
});

it('two processes adopting download files under the same keys (same and different bytes) at once: every read whole, verified or not', async () => {
	const dir = path.join(temp.dir, 'adopt-store');
	const names = ['A', 'B'];
	workers = names.map(() => spawnWorker());
	await Promise.all(workers.map((w) => nextReply(w)));
	for (const reply of await phase(names, 'adopt', dir)) {
		expect(reply.error).toBeUndefined();
		expect(reply.stats).toMatchObject({ puts: 2 * ROUNDS, goodReads: 4 * ROUNDS, badReads: 0 });
		expect(reply.warnings).toEqual([]);
		expect(reply.health).toEqual({ ok: true });
	}
});

it('a process killed (SIGKILL) while writing never leaves a half-written result or journal record behind', async () => {
	const dir = path.join(temp.dir, 'crash-store');
	const worker = spawnWorker();
	workers = [worker];
	await nextReply(worker); // ready
	let lastRound = -1;
	const killed = new Promise<void>((resolve) => {
		worker.on('message', (reply: Reply & { round?: number }) => {
			if (reply.phase !== 'writing') return;
			lastRound = reply.round ?? -1;
			if (lastRound === 3) worker.kill('SIGKILL'); // mid-way through round 3's writes
		});
		worker.once('exit', () => resolve());
	});
	worker.send({ phase: 'crash', dir, me: 'C', peers: [], rounds: 0 });
	await killed;
	expect(worker.signalCode).toBe('SIGKILL');

	const store = openStore({ dir, maxBytes: 1024 ** 3, ttlMs: 86_400_000 }, { warn: () => undefined });
	const got = await store.results.get('crashy');
	const rounds = Array.from({ length: lastRound + 1 }, (_, r) => r);
	expect(got).toBeDefined(); // rounds 0..2 completed
	expect(rounds.some((r) => got!.bytes.equals(blob(`R${r}`, 'crashy', 4 * 1024 * 1024)))).toBe(true);
	const record = await store.journal.read('crashy');
	expect(record?.state).toBe('submitting');
	expect(rounds.map((r) => `job-crash-${r}`)).toContain(record?.jobId);
	expect(store.health()).toEqual({ ok: true });
});

it('three processes write distinct results and prune their own while the others write: every write lands (folders removed as they empty are made again), every read is right', async () => {
	const dir = path.join(temp.dir, 'churned-store');
	const names = ['A', 'B', 'C'];
	workers = names.map(() => spawnWorker());
	await Promise.all(workers.map((w) => nextReply(w)));
	const churned = await phase(names, 'churn', dir, 80);
	for (const reply of churned) {
		expect(reply.error).toBeUndefined();
		expect(reply.stats).toMatchObject({ puts: 2 * 80 + 1, badReads: 0 });
		expect(reply.stats!.goodReads).toBeGreaterThanOrEqual(1); // at least the last one, written after the last prune
		expect(reply.warnings).toEqual([]);
		expect(reply.health).toEqual({ ok: true });
	}
});
