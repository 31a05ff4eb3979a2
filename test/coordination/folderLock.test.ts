/**
 * The folder lock (unit, in one process; owners of other processes are records with their token, host and pid):
 * a dead visible owner's lock is taken over at once, an unseen owner's only after the lapse without a touch, a
 * live visible owner's never; of claimants racing over one dead lock exactly one wins; a lock taken over while
 * held is lost (told once); an earlier version's lock (a folder) is judged by its age.
 */
import { mkdirSync, promises as fsPromises, readFileSync, readdirSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

import { FolderLock } from '../../src/coordination/folderLock';
import { leasesHeld } from '../../src/coordination/heartbeat';
import { ownerRecord, readOwnerRecord, thisOwner, type ProcessOwner } from '../../src/coordination/ownerLiveness';
import { useTempDir } from '../store/tempStore';
import { until } from '../support/until';

const temp = useTempDir();
const me = thisOwner();
const TIMING = { lapseMs: 60_000, touchMs: 20 };
const noSuchPid = (): number => Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
/** Another live process of this host (this test's pid, another token: alive as long as this process is). */
const liveOther = (token: string): ProcessOwner => ({ ...me, token });
const lockFile = () => path.join(temp.dir, 'a.lock');

it('takes a free lock, holds it (a second claimant does not get it), and lets it go', async () => {
	const lock = new FolderLock(TIMING);
	const held = await lock.tryLock(lockFile());
	expect(held).toMatchObject({ tookOver: false });
	expect(readOwnerRecord(readFileSync(lockFile(), 'utf8'))).toEqual(me);
	expect(await lock.tryLock(lockFile())).toBeUndefined();
	expect(await new FolderLock(TIMING, liveOther('other')).tryLock(lockFile())).toBeUndefined();
	await held!.release();
	expect(readdirSync(temp.dir)).toEqual([]);
	expect(leasesHeld()).toBe(0);
});

it("a visible owner's dead process: its lock is taken over at once; a live one's never, however old", async () => {
	writeFileSync(lockFile(), ownerRecord({ token: 'dead', host: me.host, pid: noSuchPid() }));
	const taken = await new FolderLock(TIMING).tryLock(lockFile());
	expect(taken).toMatchObject({ tookOver: true });
	await taken!.release();

	writeFileSync(lockFile(), ownerRecord(liveOther('alive')));
	const muchLater = new FolderLock(TIMING, me, () => Date.now() + 365 * 86_400_000);
	expect(await muchLater.tryLock(lockFile())).toBeUndefined();
	expect(readOwnerRecord(readFileSync(lockFile(), 'utf8'))?.token).toBe('alive');
});

it("an unseen owner's lock (another host), or an unreadable one: taken over only after the lapse without a touch", async () => {
	for (const text of [ownerRecord({ token: 'far', host: 'another-host|boot|pid:[1]', pid: 1 }), '{"owner":"cut sh']) {
		writeFileSync(lockFile(), text);
		let now = Date.now();
		const lock = new FolderLock(TIMING, me, () => now);
		expect(await lock.tryLock(lockFile())).toBeUndefined();
		now += TIMING.lapseMs + 1000;
		const taken = await lock.tryLock(lockFile());
		expect(taken).toMatchObject({ tookOver: true });
		await taken!.release();
	}
});

it('of many claimants racing over one dead lock, exactly one wins', async () => {
	for (let round = 0; round < 5; round++) {
		writeFileSync(lockFile(), ownerRecord({ token: 'dead', host: me.host, pid: noSuchPid() }));
		const claimants = Array.from({ length: 8 }, (_, i) => new FolderLock(TIMING, liveOther(`claimant-${round}-${i}`)));
		const won = (await Promise.all(claimants.map(async (lock) => await lock.tryLock(lockFile())))).filter((held) => held !== undefined);
		expect(won).toHaveLength(1);
		await won[0]!.release();
	}
});

it('a held lock replaced by another owner is lost: held() turns false, onLost is told once, release leaves the new owner', async () => {
	const lost: string[] = [];
	const held = (await new FolderLock(TIMING).tryLock(lockFile(), () => lost.push('lost')))!;
	writeFileSync(`${lockFile()}.new`, ownerRecord(liveOther('new-owner')));
	renameSync(`${lockFile()}.new`, lockFile());
	await until(() => !held.held(), 'the heartbeat finds the lock replaced');
	expect(await held.stillHeld()).toBe(false);
	expect(lost).toEqual(['lost']);
	await held.release();
	expect(readOwnerRecord(readFileSync(lockFile(), 'utf8'))?.token).toBe('new-owner');
});

it('touches a held lock through the heartbeat', async () => {
	const held = (await new FolderLock(TIMING).tryLock(lockFile()))!;
	const old = new Date(Date.now() - 3_600_000);
	utimesSync(lockFile(), old, old);
	await until(() => statSync(lockFile()).mtimeMs > old.getTime() + 1000, 'the lock is touched');
	await held.release();
});

it("an earlier version's lock (a folder): held while fresh, taken over once older than the lapse", async () => {
	mkdirSync(lockFile());
	let now = Date.now();
	const lock = new FolderLock(TIMING, me, () => now);
	expect(await lock.tryLock(lockFile())).toBeUndefined();
	now += TIMING.lapseMs + 1000;
	const taken = await lock.tryLock(lockFile());
	expect(statSync(lockFile()).isFile()).toBe(true);
	await taken!.release();
});

it('sweep removes a dead lock and a takeover lock a killed claimant left, and nothing live', async () => {
	writeFileSync(lockFile(), ownerRecord({ token: 'dead', host: me.host, pid: noSuchPid() }));
	writeFileSync(path.join(temp.dir, 'b.lock'), ownerRecord(liveOther('alive')));
	writeFileSync(path.join(temp.dir, 'c.lock.takeover'), 'x');
	const old = new Date(Date.now() - 3_600_000);
	utimesSync(path.join(temp.dir, 'c.lock.takeover'), old, old);
	const lock = new FolderLock(TIMING);
	for (const name of ['a.lock', 'b.lock', 'c.lock']) await lock.sweep(path.join(temp.dir, name));
	expect(readdirSync(temp.dir)).toEqual(['b.lock']);
});

it('a lock taken over from a holder silent past the lapse is lost to that holder, and its release leaves the new lock (inode reused or not)', async () => {
	const unseen: ProcessOwner = { token: 'silent', host: 'another-host|boot|pid:[1]', pid: 1 };
	for (let round = 0; round < 50; round++) {
		const lost: number[] = [];
		const silent = (await new FolderLock({ lapseMs: 1000, touchMs: 60_000 }, unseen).tryLock(lockFile(), () => lost.push(round)))!;
		const later = new FolderLock({ lapseMs: 1000, touchMs: 60_000 }, me, () => Date.now() + 5000);
		const taken = await later.tryLock(lockFile());
		expect(taken).toMatchObject({ tookOver: true });
		expect(await silent.stillHeld()).toBe(false);
		expect(silent.held()).toBe(false);
		expect(lost).toEqual([round]);
		await silent.release();
		expect(readOwnerRecord(readFileSync(lockFile(), 'utf8'))?.token).toBe(me.token);
		expect(await taken!.stillHeld()).toBe(true);
		expect(await new FolderLock(TIMING, liveOther(`third-${round}`)).tryLock(lockFile())).toBeUndefined();
		await taken!.release();
		expect(readdirSync(temp.dir)).toEqual([]);
	}
});

it("a release removes only its own lock: a lock replaced by another owner's is left, found lost at release", async () => {
	const held = (await new FolderLock({ lapseMs: 60_000, touchMs: 60_000 }).tryLock(lockFile()))!;
	const record = readFileSync(lockFile(), 'utf8');
	writeFileSync(`${lockFile()}.new`, ownerRecord(liveOther('new-owner')));
	renameSync(`${lockFile()}.new`, lockFile());
	await held.release();
	expect(readOwnerRecord(readFileSync(lockFile(), 'utf8'))?.token).toBe('new-owner');
	expect(readOwnerRecord(record)).toEqual(me);
});

it('a release stalled between its check and its removal (the holder frozen past the lapse) never removes the lock of an owner that judged it dead', async () => {
	const unseen: ProcessOwner = { token: 'stalled', host: 'another-container|boot|pid:[9]', pid: 9 };
	const held = (await new FolderLock({ lapseMs: 1000, touchMs: 60_000 }, unseen).tryLock(lockFile()))!;
	// The judge's clock runs 5 s ahead: to it, the holder looks silent past the lapse (as after a 5 s freeze).
	const judge = new FolderLock({ lapseMs: 1000, touchMs: 60_000 }, liveOther('judge'), () => Date.now() + 5000);
	let letGo!: () => void;
	const gate = new Promise<void>((resolve) => (letGo = resolve));
	const realUnlink = fsPromises.unlink;
	const unlink = jest.spyOn(fsPromises, 'unlink').mockImplementation(async (file) => {
		if (String(file) === lockFile()) await gate; // the holder freezes right before its unlink
		return await realUnlink(file);
	});
	try {
		const releasing = held.release();
		await until(() => unlink.mock.calls.some(([file]) => String(file) === lockFile()), 'the release reached its unlink');
		const judged = await judge.tryLock(lockFile()); // during the freeze
		letGo();
		await releasing;
		const later = judged ?? (await judge.tryLock(lockFile()));
		expect(later?.held()).toBe(true);
		expect(readOwnerRecord(readFileSync(lockFile(), 'utf8'))?.token).toBe('judge'); // the judge's lock file is there
		expect(await new FolderLock(TIMING, liveOther('third')).tryLock(lockFile())).toBeUndefined(); // one holder
		await later!.release();
	} finally {
		unlink.mockRestore();
	}
});
