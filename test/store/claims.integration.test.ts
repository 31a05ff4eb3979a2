/**
 * Claims through the store folder (src/store/claims/fileClaims.ts) with real files and real processes: one owner
 * per key, a second claimant waits for it, a dead owner on this machine is taken over at once (not after the
 * lapse), an owner elsewhere lapses after it stops touching its claim, several claimants racing for one dead
 * claim never both win, and a folder that cannot hold claims claims in the machine's spare folder, never stops a job.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdirSync, promises as fsPromises, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

import { thisOwner, type ProcessOwner as ClaimOwner } from '../../src/coordination/ownerLiveness';
import { Claims } from '../../src/store/claims/claims';
import { claimFileName } from '../../src/store/claims/fileClaims';
import { ownerRecord, readOwnerRecord } from '../../src/coordination/ownerLiveness';
import { spareFolder } from '../../src/store/spareFolder';
import { until } from '../support/until';
import { makeTempDir } from './tempStore';

const FIXTURE = path.join(__dirname, 'fixtures', 'claimHolder.ts');
const FAST = { heartbeatMs: 50, waitMinMs: 5, waitMaxMs: 20 };

let temp: ReturnType<typeof makeTempDir>;
let children: ChildProcess[] = [];
beforeEach(() => {
	temp = makeTempDir();
});
afterEach(() => {
	for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
	children = [];
	temp.cleanup();
});

type Reply = { ready?: boolean; held?: boolean; waited?: boolean; released?: boolean; from?: number; to?: number; pid?: number; error?: string };

function holder(): { child: ChildProcess; replies: Reply[]; next: (test: (r: Reply) => boolean) => Promise<Reply> } {
	const child = fork(FIXTURE, [], { execArgv: ['-r', 'ts-node/register/transpile-only'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
	children.push(child);
	const replies: Reply[] = [];
	child.on('message', (reply: Reply) => replies.push(reply));
	const next = async (test: (r: Reply) => boolean) => {
		await until(() => replies.some(test) || child.exitCode !== null, 'the claim holder replied', { limitMs: 240_000 });
		const found = replies.find(test);
		if (!found) throw new Error(`the claim holder exited (${child.exitCode})`);
		return found;
	};
	return { child, replies, next };
}

const claimFile = (dir: string, key: string) => path.join(dir, 'claims', claimFileName(key));

it('one owner per key: a second claimant waits until the first lets go, then holds it (waited)', async () => {
	// A short lapse: its claims are touched (and a removal tried again) every 100 ms; the owner is alive here, so it never lapses.
	const timing = { ...FAST, fileLapseMs: 400 };
	const a = new Claims(temp.dir, { timing });
	const b = new Claims(temp.dir, { timing, owner: { ...thisOwner(), token: 'another-claims-instance' } });
	const first = await a.acquire('job-key');
	expect(first).toMatchObject({ waited: false, through: { folder: true, redis: false } });
	let second: Awaited<ReturnType<Claims['acquire']>> | undefined;
	const waiting = b.acquire('job-key').then((claim) => (second = claim));
	await new Promise((resolve) => setTimeout(resolve, 100));
	expect(second).toBeUndefined();
	await first.release();
	await waiting;
	expect(second).toMatchObject({ waited: true, through: { folder: true } });
	await second!.release();
	expect((await a.acquire('job-key')).waited).toBe(false);
});

it('a claim whose file could not be removed at release (a read-only moment) is removed on a later heartbeat: the next claimant does not wait for the job timeout', async () => {
	// A short lapse: its claims are touched (and a removal tried again) every 100 ms; the owner is alive here, so it never lapses.
	const timing = { ...FAST, fileLapseMs: 400 };
	const a = new Claims(temp.dir, { timing });
	const b = new Claims(temp.dir, { timing, owner: { ...thisOwner(), token: 'another-claims-instance' } });
	const first = await a.acquire('job-key');
	const realUnlink = fsPromises.unlink;
	let refused = 0;
	const unlink = jest.spyOn(fsPromises, 'unlink').mockImplementation(async (file) => {
		if (String(file).endsWith('.claim') && refused === 0) {
			refused += 1;
			throw Object.assign(new Error('read-only file system'), { code: 'EROFS' });
		}
		return await realUnlink(file);
	});
	try {
		await first.release();
		expect(refused).toBe(1);
		expect(readdirSync(path.join(temp.dir, 'claims')).filter((name) => name.endsWith('.claim'))).toHaveLength(1); // still there
		// The owner's process lives on, so only the owner can remove it: b gets the key once a heartbeat did.
		const second = await b.acquire('job-key', AbortSignal.timeout(10_000));
		expect(second.waited).toBe(true);
		await second.release();
	} finally {
		unlink.mockRestore();
	}
});

it('a claim of a process killed with SIGKILL on this machine is taken over at once, not after the lapse', async () => {
	const { child, next } = holder();
	await next((r) => r.ready === true);
	child.send({ op: 'claim', dir: temp.dir, key: 'dead-key' });
	await next((r) => r.held === true);
	child.kill('SIGKILL');
	await new Promise((resolve) => child.once('exit', resolve));
	const claims = new Claims(temp.dir, { timing: { ...FAST, fileLapseMs: 60 * 60_000 } });
	const claim = await claims.acquire('dead-key');
	expect(claim).toMatchObject({ waited: true, through: { folder: true } });
	expect(readOwnerRecord(readFileSync(claimFile(temp.dir, 'dead-key'), 'utf8'))?.pid).toBe(process.pid);
	await claim.release();
});

it('an owner on another machine is judged by its touches: kept while touched, taken over once silent past the lapse', async () => {
	const elsewhere: ClaimOwner = { token: 'remote', host: 'another-host|boot|pid:[1]', pid: 1 };
	const file = claimFile(temp.dir, 'remote-key');
	// The claimant's clock is the test's: the owner touches the file every 100 ms of it, and the clock moves on only
	// once the claimant has judged the claim again (it read the clock), so it judges it touched at most 200 ms ago
	// however slowly this machine runs (with a real clock, a 400 ms stall of this process between touches looked like silence).
	let clock = Date.now();
	let reads = 0;
	const claims = new Claims(temp.dir, { timing: { ...FAST, fileLapseMs: 400 }, now: () => ((reads += 1), clock) });
	const touch = () => utimesSync(file, new Date(clock), new Date(clock));
	await claims.acquire('warm-up').then((c) => c.release()); // the folder exists
	writeFileSync(file, ownerRecord(elsewhere));
	touch();
	let got = false;
	const waiting = claims.acquire('remote-key').then((claim) => ((got = true), claim));
	for (let step = 0; step < 10; step++) {
		// 1000 ms of the clock in all: 2.5 lapses, touched all along
		const before = reads;
		await until(() => reads > before || got, 'the claimant judged the claim again');
		clock += 100;
		touch();
	}
	expect(got).toBe(false);
	clock += 401; // silent past the lapse
	const claim = await waiting;
	expect(claim.waited).toBe(true);
	await claim.release();
});

it('an unreadable claim (cut short by a crash) is judged by its age: fresh it holds, stale it is taken over', async () => {
	let later = 0; // how far this claimant's clock is ahead of the file's touch
	const claims = new Claims(temp.dir, { timing: { ...FAST, fileLapseMs: 60_000 }, now: () => Date.now() + later });
	await claims.acquire('warm-up').then((c) => c.release());
	writeFileSync(claimFile(temp.dir, 'torn-key'), '{"tok');
	let got = false;
	const waiting = claims.acquire('torn-key').then((claim) => ((got = true), claim));
	await new Promise((resolve) => setTimeout(resolve, 200));
	expect(got).toBe(false); // fresh: held
	later = 61_000; // the lapse has passed without a touch
	const claim = await waiting;
	expect(claim.waited).toBe(true);
	await claim.release();
});

it('a claim whose bytes were changed (its checksum fails) never passes for another owner: judged by its touches, kept while its owner touches it', async () => {
	const { child, next } = holder();
	await next((r) => r.ready === true);
	child.send({ op: 'claim', dir: temp.dir, key: 'changed-key' });
	await next((r) => r.held === true);
	const file = claimFile(temp.dir, 'changed-key');
	// The digits of the pid changed (a process that does not exist): without the checksum it would look dead.
	writeFileSync(file, readFileSync(file, 'utf8').replace(/\\"pid\\":(\d+)/, (_m, pid: string) => `\\"pid\\":${pid}9`));
	expect(readOwnerRecord(readFileSync(file, 'utf8'))).toBeUndefined();
	const claims = new Claims(temp.dir, { timing: { ...FAST, fileLapseMs: 60_000 } });
	const stop = new AbortController();
	const waiting = claims.acquire('changed-key', stop.signal);
	let got = false;
	void waiting.then(() => (got = true), () => undefined);
	await new Promise((resolve) => setTimeout(resolve, 300));
	expect(got).toBe(false); // its (live) owner keeps it
	child.kill('SIGKILL');
	await new Promise((resolve) => child.once('exit', resolve));
	// Stop waiting before the folder is removed (a claimant still polling it would race the removal).
	stop.abort(new Error('test over'));
	await expect(waiting).rejects.toThrow('test over');
});

it('four processes racing for the claim of a dead owner: it is held by one at a time, and each gets it once', async () => {
	const dead = holder();
	await dead.next((r) => r.ready === true);
	dead.child.send({ op: 'claim', dir: temp.dir, key: 'raced' });
	await dead.next((r) => r.held === true);
	dead.child.kill('SIGKILL');
	await new Promise((resolve) => dead.child.once('exit', resolve));
	const racers = [holder(), holder(), holder(), holder()];
	await Promise.all(racers.map((r) => r.next((reply) => reply.ready === true)));
	for (const racer of racers) racer.child.send({ op: 'claim', dir: temp.dir, key: 'raced', holdMs: 150 });
	const intervals = await Promise.all(racers.map(async (racer) => await racer.next((reply) => reply.released === true)));
	const sorted = intervals.map((i) => [i.from!, i.to!]).sort((x, y) => x[0] - y[0]);
	for (let i = 1; i < sorted.length; i++) expect(sorted[i][0]).toBeGreaterThanOrEqual(sorted[i - 1][1]);
});

it('a folder that cannot hold claims (the path is a file): the fault is reported, the claim is made in the machine\'s spare folder, and a second claimant on that folder still waits for the first', async () => {
	const blocker = path.join(temp.dir, 'not-a-folder');
	writeFileSync(blocker, 'x');
	const faults: string[] = [];
	const onFault = (operation: string, error: unknown) => faults.push(`${operation}: ${(error as { code?: string }).code}`);
	const a = new Claims(blocker, { timing: FAST, onFault });
	const b = new Claims(blocker, { timing: FAST, onFault, owner: { ...thisOwner(), token: 'another-process' } });
	try {
		const first = await a.acquire('k');
		expect(first).toMatchObject({ waited: false, through: { folder: true, redis: false } });
		expect(faults).toEqual(['making a claim: ENOTDIR']);
		expect(readdirSync(path.join(spareFolder(blocker), 'claims'))).toEqual([claimFileName('k')]);
		let second: Awaited<ReturnType<Claims['acquire']>> | undefined;
		const waiting = b.acquire('k').then((claim) => (second = claim));
		await until(() => faults.length === 2, 'the second claimant tried the folder');
		expect(second).toBeUndefined();
		await first.release();
		await waiting;
		expect(second).toMatchObject({ waited: true, through: { folder: true } });
		await second!.release();
	} finally {
		rmSync(spareFolder(blocker), { recursive: true, force: true });
	}
});

it('a folder that cannot hold claims, and no spare folder either: the job goes on unclaimed', async () => {
	const blocker = path.join(temp.dir, 'not-a-folder');
	writeFileSync(blocker, 'x');
	const spare = spareFolder(blocker);
	mkdirSync(path.dirname(spare), { recursive: true });
	writeFileSync(spare, 'not a folder either');
	try {
		const claim = await new Claims(blocker, { timing: FAST }).acquire('k');
		expect(claim).toMatchObject({ waited: false, through: { folder: false, redis: false } });
		await claim.release();
	} finally {
		rmSync(spare, { force: true });
	}
});

it('a claimant whose execution is cancelled while it waits stops waiting (the signal reason) and holds nothing', async () => {
	const claims = new Claims(temp.dir, { timing: FAST });
	const held = await claims.acquire('busy');
	const controller = new AbortController();
	const waiting = new Claims(temp.dir, { timing: FAST, owner: { ...thisOwner(), token: 'other' } }).acquire('busy', controller.signal);
	controller.abort(new Error('stopped'));
	await expect(waiting).rejects.toThrow('stopped');
	await held.release();
	expect((await claims.acquire('busy')).waited).toBe(false);
});

it('a held file claim is touched every quarter of its lapse, not at every heartbeat (thirty claims touched at once cost sixty filesystem calls)', async () => {
	jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
	try {
		const claims = new Claims(temp.dir, { timing: { ...FAST, fileLapseMs: 4_000 } });
		const claim = await claims.acquire('touched-key');
		const file = claimFile(temp.dir, 'touched-key');
		const old = new Date(Date.now() - 3_600_000);
		utimesSync(file, old, old);
		// (An hour apart: a time set through utimes reads back a fraction of a millisecond off.)
		const isTouched = async () => (await fsPromises.stat(file)).mtimeMs > old.getTime() + 60_000;
		const touched = async () => {
			// The touch's stat and utimes are real I/O, which fake timers do not drive: yield until they ran (bounded).
			for (let turn = 0; turn < 500 && !(await isTouched()); turn++) await new Promise((resolve) => setImmediate(resolve));
			return await isTouched();
		};
		await jest.advanceTimersByTimeAsync(900); // eighteen heartbeats of 50 ms
		expect(await touched()).toBe(false);
		await jest.advanceTimersByTimeAsync(200); // a quarter of the lapse (1 s) has passed
		expect(await touched()).toBe(true);
		await claim.release();
	} finally {
		jest.useRealTimers();
	}
});
