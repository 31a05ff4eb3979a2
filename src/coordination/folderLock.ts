/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/coordination knows nothing of n8n nodes: filesystem errors reach their caller as they came. */
/**
 * One lock on a file of a folder, honoured by every process that sees the folder: `<file>` created exclusively
 * (`wx`) holding its owner's record (ownerLiveness.ts), touched through the process's heartbeat (heartbeat.ts)
 * while held, removed on release. A lock found taken is taken over at once when its owner's process is gone (one
 * this process can see: same host, boot and PID namespace), after `lapseMs` without a touch when its owner cannot
 * be seen (another host or container) or its record cannot be read (cut short, or an earlier version's lock
 * folder); never while its owner is alive and visible, however slow. A takeover runs under `<file>.takeover`
 * (also `wx`) and judges the lock again there, so two claimants that judged the same dead lock never both win. A
 * held lock found replaced (taken over after this process was silent past the lapse) is lost: `held()` turns
 * false and `onLost` is told.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

import { holdLease } from './heartbeat';
import { type ProcessOwner, processAlive, ownerRecord, readOwnerRecord, thisOwner } from './ownerLiveness';

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
			if (made || !(await this.isDead(file))) return made;
			await this.takeOver(file);
		}
		return undefined;
	}

	/** The lock at `file`, tried `minMs` to `maxMs` apart (growing) for up to `waitMs`; undefined when held all that time. */
	async lock(file: string, waitMs: number, pauses = { minMs: 5, maxMs: 40 }): Promise<HeldLock | undefined> {
		const until = this.now() + waitMs;
		for (let pause = pauses.minMs; ; pause = Math.min(pauses.maxMs, Math.ceil(pause * 1.5))) {
			const held = await this.tryLock(file);
			if (held || this.now() >= until) return held;
			await new Promise((resolve) => setTimeout(resolve, pause * (0.5 + Math.random())));
		}
	}

	/** Removes the lock at `file` if its owner is gone (killed holding it), or else a takeover lock a killed claimant left. */
	async sweep(file: string): Promise<void> {
		if (await this.isDead(file)) await this.takeOver(file);
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
			await handle.writeFile(ownerRecord(this.owner)).catch(() => undefined);
			return this.hold(file, await handle.stat(), tookOver, forget, onLost);
		} catch (error) {
			await fs.rm(file, { force: true }).catch(() => undefined);
			forget();
			throw error;
		} finally {
			await handle.close().catch(() => undefined);
		}
	}

	private hold(file: string, id: { ino: number; dev: number }, tookOver: boolean, forget: () => void, onLost: () => void): HeldLock {
		let lost = false;
		const isMine = async () => {
			const info = await fs.stat(file).catch(() => undefined);
			return info?.ino === id.ino && info.dev === id.dev;
		};
		const stillHeld = async () => {
			if (lost || (await isMine())) return !lost;
			lost = true;
			stopTouching();
			onLost();
			return false;
		};
		const stopTouching = holdLease(async () => {
			const at = new Date(this.now());
			if (await stillHeld()) await fs.utimes(file, at, at).catch(() => undefined);
		}, this.options.touchMs);
		const remove = async () => !(await isMine()) || (await fs.rm(file, { force: true }).then(() => true, () => false));
		return {
			tookOver,
			held: () => !lost,
			stillHeld,
			release: async () => {
				stopTouching();
				forget();
				if (lost || (await remove())) return;
				// This process lives on: others would wait on the lock (a read-only or failing folder); removed when it can be.
				const stop = holdLease(async () => void ((await remove()) && stop()), this.options.touchMs);
			},
		};
	}

	private async isDead(file: string): Promise<boolean> {
		const info = await fs.stat(file).catch(() => undefined);
		if (!info) return false; // released meanwhile: create again
		const owner = info.isFile() ? readOwnerRecord(await fs.readFile(file, 'utf8').catch(() => '')) : undefined;
		if (owner?.token === this.owner.token) return !ours.has(`${owner.token}\0${file}`); // this owner's, no longer held
		const alive = owner ? processAlive(owner, this.owner) : undefined;
		return alive === undefined ? this.now() - info.mtimeMs > this.options.lapseMs : !alive;
	}

	/** Removes a dead lock under the takeover lock, after judging it again there (never a lock made meanwhile). */
	private async takeOver(file: string): Promise<void> {
		const takeover = `${file}.takeover`;
		try {
			await fs.writeFile(takeover, ownerRecord(this.owner), { flag: 'wx', mode: 0o600 });
		} catch (error) {
			if (codeOf(error) === 'EEXIST') await this.removeStaleTakeover(takeover);
			return; // another claimant is taking it over, or the folder cannot be written
		}
		try {
			if (await this.isDead(file)) await fs.rm(file, { recursive: true, force: true });
		} finally {
			await fs.rm(takeover, { force: true }).catch(() => undefined);
		}
	}

	private async removeStaleTakeover(takeover: string): Promise<void> {
		const info = await fs.stat(takeover).catch(() => undefined);
		if (info && this.now() - info.mtimeMs > TAKEOVER_LAPSE_MS) await fs.rm(takeover, { force: true }).catch(() => undefined);
	}
}
