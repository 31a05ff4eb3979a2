/**
 * Claims through the store folder, safe for every process of one machine (and processes elsewhere sharing the
 * folder): one file per key, `<dir>/<key>.claim`, created exclusively (`wx`) with its owner (src/coordination/ownerLiveness.ts) and
 * touched every heartbeat while held, removed on release. A claimant that finds the file waits: it is taken over
 * at once when its owner's process is gone (same machine), and after `fileLapseMs` without a touch when its owner
 * cannot be seen (elsewhere); never while its owner is alive on this machine, however slow. A takeover runs
 * under `<key>.claim.takeover` (also `wx`), so two claimants that judged the same dead claim never both win (the
 * second finds the first's live claim). A folder that cannot hold claims (read-only, full) is reported and the
 * job goes on unclaimed: a claim never stops a job.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

import { codeOf } from '../fsErrors';
import { ensureStoreFolder } from '../storeFolder';
import { type ProcessOwner as ClaimOwner, processAlive as ownerAlive, ownerRecord, readOwnerRecord, thisOwner } from '../../coordination/ownerLiveness';
import type { ClaimTiming } from './claims';
import { backoff, type ClaimWakeups, type HeldClaim } from './claimWait';

interface Held {
	file: string;
	ino: number;
	dev: number;
	lost: boolean;
}

/** A takeover lock older than this was left by a process killed during its takeover (which takes milliseconds). */
const TAKEOVER_LAPSE_MS = 10_000;
const SAFE_NAME = /^[A-Za-z0-9_-]{1,128}$/;

/** The claim file name of a key (a key that is not a plain name is hashed). */
export function claimFileName(key: string): string {
	return `${SAFE_NAME.test(key) ? key : createHash('sha256').update(key).digest('hex')}.claim`;
}

export class FileClaims {
	private readonly held = new Map<string, Held>();
	/** Released claims whose file could not be removed (a read-only or failing folder): removed again each heartbeat. */
	private readonly unremoved = new Set<Held>();
	/** Claim files this process is creating right now (not yet in `held`, but not a leftover of ours either). */
	private readonly creating = new Set<string>();
	private heartbeat?: NodeJS.Timeout;

	constructor(
		readonly dir: string,
		private readonly timing: ClaimTiming,
		private readonly wakeups: ClaimWakeups,
		/** A claim could not be made in the folder (the job goes on unclaimed). */
		private readonly onFault: (operation: string, error: unknown) => void,
		/** A held claim was taken over by another process. */
		private readonly onLost: (key: string) => void = () => undefined,
		private readonly owner: ClaimOwner = thisOwner(),
		private readonly now: () => number = Date.now,
	) {}

	/**
	 * Claims `key`, waiting while another live owner holds it. Resolves with the claim and whether it waited, or
	 * without a claim when the folder cannot hold one (reported through onFault). Rejects with the signal's reason.
	 */
	async acquire(key: string, signal?: AbortSignal): Promise<{ claim?: HeldClaim; waited: boolean }> {
		const pause = backoff(this.timing.waitMinMs, this.timing.waitMaxMs);
		return await this.claim(key, Number.POSITIVE_INFINITY, async () => await this.wakeups.pause(key, pause(), signal), signal);
	}

	/** Claims `key` if nobody holds it (a dead owner's claim is taken over); undefined when held or impossible. */
	async tryAcquire(key: string): Promise<HeldClaim | undefined> {
		return (await this.claim(key, 2)).claim;
	}

	/** Claim files whose owner is gone (a process killed while holding them); for the store's prune. */
	async sweep(): Promise<void> {
		const names = await fs.readdir(this.dir).catch(() => [] as string[]);
		for (const name of names) {
			const file = path.join(this.dir, name);
			if (name.endsWith('.claim') && (await this.judgeDead(file))) await this.takeOver(file);
			else if (name.endsWith('.takeover')) await this.removeIfOlder(file, TAKEOVER_LAPSE_MS);
		}
	}

	/** How many claims this process holds. */
	get size(): number {
		return this.held.size;
	}

	/** False when this process held `key` and its file is another owner's now (checked now, not at the last heartbeat); true otherwise. */
	async stillHeld(key: string): Promise<boolean> {
		const held = this.held.get(key);
		if (!held) return true;
		if (held.lost) return false;
		if (await this.isMine(held)) return true;
		held.lost = true;
		this.onLost(key);
		return false;
	}

	/** Up to `tries` attempts to create the claim file, taking over a dead owner's; `wait` (none: give up) while a live owner holds it. */
	private async claim(key: string, tries: number, wait?: () => Promise<void>, signal?: AbortSignal): Promise<{ claim?: HeldClaim; waited: boolean }> {
		const file = path.join(this.dir, claimFileName(key));
		let waited = false;
		for (let attempt = 0; attempt < tries; attempt++) {
			signal?.throwIfAborted();
			this.creating.add(file);
			try {
				const made = await this.create(file);
				if (made === 'unusable') return { waited };
				if (made !== 'held') return { claim: this.hold(key, made), waited };
			} finally {
				this.creating.delete(file);
			}
			waited = true;
			if (await this.judgeDead(file)) await this.takeOver(file);
			else if (wait) await wait();
			else break;
		}
		return { waited };
	}

	private async create(file: string): Promise<{ ino: number; dev: number } | 'held' | 'unusable'> {
		for (let attempt = 0; attempt < 2; attempt++) {
			let handle: fs.FileHandle;
			try {
				handle = await fs.open(file, 'wx', 0o600);
			} catch (error) {
				if (codeOf(error) === 'EEXIST') return 'held';
				if (codeOf(error) === 'ENOENT' && attempt === 0 && (await this.ensureFolder())) continue;
				if (codeOf(error) !== 'ENOENT') this.onFault('making a claim', error);
				return 'unusable';
			}
			try {
				// A disk too full for the owner's line keeps the claim anonymous: judged by its touches, not its owner.
				await handle.writeFile(ownerRecord(this.owner)).catch(() => undefined);
				const { ino, dev } = await handle.stat();
				return { ino, dev };
			} catch (error) {
				await fs.rm(file, { force: true }).catch(() => undefined);
				this.onFault('making a claim', error);
				return 'unusable';
			} finally {
				await handle.close().catch(() => undefined);
			}
		}
		return 'unusable';
	}

	private async ensureFolder(): Promise<boolean> {
		try {
			await ensureStoreFolder(this.dir);
			return true;
		} catch (error) {
			this.onFault('making a claim', error);
			return false;
		}
	}

	private hold(key: string, id: { ino: number; dev: number }): HeldClaim {
		const held: Held = { file: path.join(this.dir, claimFileName(key)), ...id, lost: false };
		this.held.set(key, held);
		this.startHeartbeat();
		return {
			held: () => !held.lost,
			release: async () => {
				if (this.held.get(key) === held) this.held.delete(key);
				if (!held.lost && !(await this.removeFile(held))) this.unremoved.add(held); // this process lives on: others would wait on it
				if (this.held.size === 0 && this.unremoved.size === 0) this.stopHeartbeat();
				this.wakeups.released(key);
			},
		};
	}

	/** Gone: its owner's process is dead (this machine), its content unreadable or its owner elsewhere and silent past the lapse. */
	private async judgeDead(file: string): Promise<boolean> {
		let text: string;
		let mtimeMs: number;
		try {
			[text, { mtimeMs }] = await Promise.all([fs.readFile(file, 'utf8'), fs.stat(file)]);
		} catch {
			return false; // released meanwhile: create again
		}
		const owner = readOwnerRecord(text); // undefined: cut short by a crash, or changed: judged by its age
		if (owner && owner.token === this.owner.token) return !this.creating.has(file) && ![...this.held.values()].some((h) => h.file === file); // ours, but no longer held
		const alive = owner ? ownerAlive(owner, this.owner) : undefined;
		if (alive !== undefined) return !alive;
		return this.now() - mtimeMs > this.timing.fileLapseMs;
	}

	/** Removes a dead claim under the takeover lock, after judging it again there (never a claim made meanwhile). */
	private async takeOver(file: string): Promise<void> {
		const lock = `${file}.takeover`;
		try {
			await fs.writeFile(lock, ownerRecord(this.owner), { flag: 'wx', mode: 0o600 });
		} catch (error) {
			if (codeOf(error) === 'EEXIST') await this.removeIfOlder(lock, TAKEOVER_LAPSE_MS);
			return; // another claimant is taking it over, or the folder cannot be written (the next create says so)
		}
		try {
			if (await this.judgeDead(file)) await fs.rm(file, { force: true });
		} finally {
			await fs.rm(lock, { force: true }).catch(() => undefined);
		}
	}

	private async removeIfOlder(file: string, ageMs: number): Promise<void> {
		const info = await fs.stat(file).catch(() => undefined);
		if (info && this.now() - info.mtimeMs > ageMs) await fs.rm(file, { force: true }).catch(() => undefined);
	}

	/** Removes a released claim's file if it is still this claim's; false when that failed (it is still there). */
	private async removeFile(held: Held): Promise<boolean> {
		if (!(await this.isMine(held))) return true;
		return await fs.rm(held.file, { force: true }).then(
			() => true,
			() => false,
		);
	}

	private async isMine(held: Held): Promise<boolean> {
		const info = await fs.stat(held.file).catch(() => undefined);
		return info !== undefined && info.ino === held.ino && info.dev === held.dev;
	}

	private startHeartbeat(): void {
		if (this.heartbeat) return;
		this.heartbeat = setInterval(() => void this.touchAll(), this.timing.heartbeatMs);
		this.heartbeat.unref();
	}

	private stopHeartbeat(): void {
		clearInterval(this.heartbeat);
		this.heartbeat = undefined;
	}

	/** Touches every held claim; one found replaced (taken over) is marked lost. */
	private async touchAll(): Promise<void> {
		for (const held of [...this.unremoved]) if (await this.removeFile(held)) this.unremoved.delete(held);
		if (this.held.size === 0 && this.unremoved.size === 0) this.stopHeartbeat();
		const at = new Date(this.now());
		for (const [key, held] of [...this.held]) {
			if (held.lost) continue;
			if (!(await this.isMine(held))) {
				held.lost = true;
				this.onLost(key);
				continue;
			}
			await fs.utimes(held.file, at, at).catch(() => undefined);
		}
	}
}
