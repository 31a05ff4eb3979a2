/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/coordination knows nothing of n8n nodes: filesystem errors reach their caller as they came. */
/**
 * One lock on a file of a folder, honoured by every process that sees the folder: `<file>` created exclusively
 * (`wx`) holding its owner's record (ownerLiveness.ts), touched through the process's heartbeat (heartbeat.ts)
 * while held, removed on release. A lock found taken is taken over at once when its owner's process is gone (one
 * this process can see: same host, boot and PID namespace), after `lapseMs` without a touch when its owner cannot
 * be seen (another host or container) or its record cannot be read (cut short, or an earlier version's lock
 * folder); never while its owner is alive and visible, however slow. A takeover runs under `<file>.takeover`
 * (also `wx`) and judges the lock again there, removing it only if it is still the very lock judged dead, so two
 * claimants that judged the same dead lock never both win. Its holder keeps the lock file open while it holds it,
 * so the file's inode cannot be freed and given to a later file: the path still naming that device and inode (one
 * stat) is the holder's lock, and a held lock found replaced (taken over after this process was silent past the
 * lapse) is lost: `held()` turns false and `onLost` is told. A release removes the file only while it is still this
 * lock, under `<file>.takeover` too, so it never removes the lock of an owner that took it over.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

import { holdLease } from './heartbeat';
import { type ProcessOwner, processAlive, ownerRecord, readOwnerRecord, thisOwner } from './ownerLiveness';
import { backoff } from './wakeups';

export interface LockOptions {
	/** A lock whose owner cannot be seen is dead after this long without a touch. */
	lapseMs: number;
	/** How often a held lock is touched. */
	touchMs: number;
	/** Makes a missing folder (then the lock is tried again); absent: a missing folder rejects (ENOENT). */
	makeFolder?: (dir: string) => Promise<void>;
}

export interface HeldLock {
	/** It was found held and taken over (its owner dead): what that owner did may have to be read. */
	readonly tookOver: boolean;
	/** False once another process took the lock over. */
	held(): boolean;
	/** Whether the lock file is still this lock's, checked now (false: lost, and `onLost` told). */
	stillHeld(): Promise<boolean>;
	/** Removes the lock file if it is still this lock's; one that cannot be removed now is tried again each touch. */
	release(): Promise<void>;
}

/** A takeover lock older than this was left by a process killed during its takeover (which takes milliseconds). */
const TAKEOVER_LAPSE_MS = 10_000;
/** The locks this process holds or is creating, by owner token and file: a file of this owner not here is a leftover. */
const ours = new Map<string, object>();
const codeOf = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;
/** How often, and how far apart, a release tries for a takeover lock a claimant holds (milliseconds) before its touches do. */
const RELEASE_TRIES = { count: 5, pauseMs: 10 };

export class FolderLock {
	constructor(
		readonly options: LockOptions,
		private readonly owner: ProcessOwner = thisOwner(),
		private readonly now: () => number = Date.now,
	) {}

	/** The lock at `file` if nobody alive holds it (a dead owner's is taken over first), else undefined. Rejects with the filesystem's error. */
	async tryLock(file: string, onLost: () => void = () => undefined): Promise<HeldLock | undefined> {
		for (let attempt = 0; attempt < 2; attempt++) {
			const made = await this.create(file, onLost, attempt > 0);
			const dead = made ? undefined : await this.deadLock(file);
			if (made || dead === undefined) return made;
			await this.takeOver(file, dead);
		}
		return undefined;
	}

	/** The lock at `file`, tried `minMs` to `maxMs` apart (growing) for up to `waitMs`; undefined when held all that time. */
	async lock(file: string, waitMs: number, pauses = { minMs: 5, maxMs: 40 }): Promise<HeldLock | undefined> {
		const until = this.now() + waitMs;
		for (const pause = backoff(pauses.minMs, pauses.maxMs); ; ) {
			const held = await this.tryLock(file);
			if (held || this.now() >= until) return held;
			await new Promise((resolve) => setTimeout(resolve, pause() * (0.5 + Math.random())));
		}
	}

	/** Removes the lock at `file` if its owner is gone (killed holding it), or else a takeover lock a killed claimant left. */
	async sweep(file: string): Promise<void> {
		const dead = await this.deadLock(file);
		if (dead !== undefined) await this.takeOver(file, dead);
		else await this.removeStaleTakeover(`${file}.takeover`);
	}

	/** The lock file made for this owner, or undefined when it exists (this owner holds it, or another). */
	private async create(file: string, onLost: () => void, tookOver: boolean): Promise<HeldLock | undefined> {
		const key = `${this.owner.token}\0${file}`;
		if (ours.has(key)) return undefined;
		const mark = {};
		ours.set(key, mark);
		const forget = () => ours.get(key) === mark && ours.delete(key);
		const open = async () => await fs.open(file, 'wx', 0o600);
		let handle: fs.FileHandle;
		let making = false; // the folder's error is not the lock's
		try {
			handle = await open().catch(async (error: unknown) => {
				if (!this.options.makeFolder || !['ENOENT', 'ENOTDIR'].includes(codeOf(error) as string)) throw error;
				making = true;
				await this.options.makeFolder(path.dirname(file));
				making = false;
				return await open();
			});
		} catch (error) {
			forget();
			if (!making && codeOf(error) === 'EEXIST') return undefined;
			throw error;
		}
		try {
			// A disk too full for the owner's record keeps the lock anonymous: judged by its touches, not its owner.
			const [info] = await Promise.all([handle.stat({ bigint: true }), handle.writeFile(ownerRecord(this.owner)).catch(() => undefined)]);
			return this.hold(file, handle, { dev: info.dev, ino: info.ino }, tookOver, forget, onLost);
		} catch (error) {
			await handle.close().catch(() => undefined);
			await fs.rm(file, { force: true }).catch(() => undefined);
			forget();
			throw error;
		}
	}

	/**
	 * The lock just made: its file is known by `id` (device and inode, taken from `handle`, which stays open while the
	 * lock is held, so the inode cannot be freed and reused by a later file: the path naming that inode is this lock).
	 */
	private hold(file: string, handle: fs.FileHandle, id: { dev: bigint; ino: bigint }, tookOver: boolean, forget: () => void, onLost: () => void): HeldLock {
		let lost = false;
		const close = () => void handle.close().catch(() => undefined);
		const isMine = async () => {
			const info = await fs.stat(file, { bigint: true }).catch(() => undefined);
			return info?.ino === id.ino && info.dev === id.dev;
		};
		const stillHeld = async () => {
			if (lost || (await isMine())) return !lost;
			lost = true;
			stopTouching();
			close();
			onLost();
			return false;
		};
		const stopTouching = holdLease(async () => {
			const at = new Date(this.now());
			if (await stillHeld()) await fs.utimes(file, at, at).catch(() => undefined);
		}, this.options.touchMs);
		const removeIfMine = async () => !(await isMine()) || (await fs.unlink(file).then(() => true, (error: unknown) => codeOf(error) === 'ENOENT'));
		// Under the takeover lock no claimant removes the file (and so none makes a new one) between the stat and the
		// unlink, however long this process stalls between them (a release without it could remove a new owner's lock).
		const remove = async () => {
			for (let tries = 1; ; tries++) {
				const guarded = await this.underTakeover(file, removeIfMine);
				if (guarded.ran) return guarded.value;
				if (guarded.busy === false) return await removeIfMine(); // the folder takes no new file (full): removed unguarded
				if (tries >= RELEASE_TRIES.count) return false;
				await new Promise((resolve) => setTimeout(resolve, RELEASE_TRIES.pauseMs));
			}
		};
		return {
			tookOver,
			held: () => !lost,
			stillHeld,
			release: async () => {
				stopTouching();
				forget();
				if (lost) return;
				if (await remove()) return close();
				// This process lives on: others would wait on the lock (a read-only or failing folder); removed when it can be.
				const stop = holdLease(async () => void ((await remove()) && (stop(), close())), this.options.touchMs);
			},
		};
	}

	/** The lock at `file` as judged dead (its inode and text: which lock it was), or undefined when it lives or is gone. */
	private async deadLock(file: string): Promise<string | undefined> {
		const info = await fs.stat(file).catch(() => undefined);
		if (!info) return undefined; // released meanwhile: create again
		const text = info.isFile() ? await fs.readFile(file, 'utf8').catch(() => '') : '';
		const which = `${info.dev}:${info.ino}:${text}`;
		const owner = readOwnerRecord(text);
		if (owner?.token === this.owner.token) return ours.has(`${owner.token}\0${file}`) ? undefined : which; // this owner's, no longer held
		const alive = owner ? processAlive(owner, this.owner) : undefined;
		return (alive === undefined ? this.now() - info.mtimeMs > this.options.lapseMs : !alive) ? which : undefined;
	}

	/** Removes the dead lock `judged` (deadLock) under the takeover lock, if judged dead again there and still that lock. */
	private async takeOver(file: string, judged: string): Promise<void> {
		await this.underTakeover(file, async () => {
			if ((await this.deadLock(file)) === judged) await fs.rm(file, { recursive: true, force: true });
		});
	}

	/**
	 * `work` run holding `<file>.takeover`; not run when it is held (`busy`: a stale one is removed) or cannot be made
	 * (the folder cannot be written).
	 */
	private async underTakeover<T>(file: string, work: () => Promise<T>): Promise<{ ran: true; value: T } | { ran: false; busy: boolean }> {
		const takeover = `${file}.takeover`;
		try {
			await fs.writeFile(takeover, ownerRecord(this.owner), { flag: 'wx', mode: 0o600 });
		} catch (error) {
			const busy = codeOf(error) === 'EEXIST';
			if (busy) await this.removeStaleTakeover(takeover);
			return { ran: false, busy };
		}
		try {
			return { ran: true, value: await work() };
		} finally {
			await fs.unlink(takeover).catch(() => undefined);
		}
	}

	private async removeStaleTakeover(takeover: string): Promise<void> {
		const info = await fs.stat(takeover).catch(() => undefined);
		if (info && this.now() - info.mtimeMs > TAKEOVER_LAPSE_MS) await fs.rm(takeover, { force: true }).catch(() => undefined);
	}
}
