/**
 * Claims through the store folder, safe for every process of one machine (and processes elsewhere sharing the
 * folder): one folder lock per key (src/coordination/folderLock.ts), `<dir>/<key>.claim`, held while the job runs.
 * A claimant that finds it held waits: it is taken over at once when its owner's process is gone (same machine),
 * and after `fileLapseMs` without a touch when its owner cannot be seen (elsewhere); never while its owner is
 * alive on this machine, however slow. A folder that cannot hold claims (read-only, full) is reported and the job
 * goes on unclaimed: a claim never stops a job.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

import { FolderLock, type HeldLock } from '../../coordination/folderLock';
import { type ProcessOwner as ClaimOwner, thisOwner } from '../../coordination/ownerLiveness';
import { ensureStoreFolder } from '../storeFolder';
import type { ClaimTiming, HeldClaim } from './claims';
import { backoff, type Wakeups } from '../../coordination/wakeups';

const SAFE_NAME = /^[A-Za-z0-9_-]{1,128}$/;

/** The claim file name of a key (a key that is not a plain name is hashed). */
export function claimFileName(key: string): string {
	return `${SAFE_NAME.test(key) ? key : createHash('sha256').update(key).digest('hex')}.claim`;
}

/**
 * How often a held file claim is touched: four times per lapse (5 s in production), never more often than the
 * heartbeat. Each touch is two filesystem calls per claim; at the heartbeat's 2 s, thirty claims of jobs of about
 * two seconds were all touched at once, right when their results came in.
 */
export const fileTouchMs = (timing: ClaimTiming): number => Math.max(timing.heartbeatMs, timing.fileLapseMs / 4);

export class FileClaims {
	private readonly held = new Map<string, HeldLock>();
	private readonly lock: FolderLock;

	constructor(
		readonly dir: string,
		private readonly timing: ClaimTiming,
		private readonly wakeups: Wakeups,
		private readonly onFault: (operation: string, error: unknown) => void,
		private readonly onLost: (key: string) => void = () => undefined,
		owner: ClaimOwner = thisOwner(),
		now: () => number = Date.now,
	) {
		this.lock = new FolderLock({ lapseMs: timing.fileLapseMs, touchMs: fileTouchMs(timing), makeFolder: ensureStoreFolder }, owner, now);
	}

	/**
	 * Claims `key`, waiting while another live owner holds it. Resolves with the claim and whether it waited, or
	 * without a claim when the folder cannot hold one (reported through onFault). Rejects with the signal's reason.
	 */
	async acquire(key: string, signal?: AbortSignal): Promise<{ claim?: HeldClaim; waited: boolean }> {
		const pause = backoff(this.timing.waitMinMs, this.timing.waitMaxMs);
		for (let waited = false; ; waited = true) {
			signal?.throwIfAborted();
			const made = await this.claim(key);
			if (made !== 'held') return { claim: made?.claim, waited: waited || made?.tookOver === true };
			await this.wakeups.pause(key, pause(), signal);
		}
	}

	/** Claim files whose owner is gone (a process killed while holding them), and takeover locks killed processes left; for the store's prune. */
	async sweep(): Promise<void> {
		for (const name of await fs.readdir(this.dir).catch(() => [] as string[])) {
			if (name.endsWith('.claim')) await this.lock.sweep(path.join(this.dir, name));
			else if (name.endsWith('.claim.takeover')) await this.lock.sweep(path.join(this.dir, name.slice(0, -'.takeover'.length)));
		}
	}

	/** How many claims this process holds. */
	get size(): number {
		return this.held.size;
	}

	/** False when this process held `key` and its file is another owner's now (checked now, not at the last touch); true otherwise. */
	async stillHeld(key: string): Promise<boolean> {
		return (await this.held.get(key)?.stillHeld()) ?? true;
	}

	/** The claim (and whether a dead owner's was taken over), 'held' while a live owner holds it, or undefined when the folder cannot hold one (reported). */
	async claim(key: string): Promise<{ claim: HeldClaim; tookOver: boolean } | 'held' | undefined> {
		const held = await this.lock.tryLock(path.join(this.dir, claimFileName(key)), () => this.onLost(key)).catch((error: unknown) => {
			this.onFault('making a claim', error);
			return null;
		});
		if (held === null) return undefined;
		if (!held) return 'held';
		this.held.set(key, held);
		const release = async () => {
			if (this.held.get(key) === held) this.held.delete(key);
			await held.release();
			this.wakeups.wake(key);
		};
		return { claim: { held: () => held.held(), release }, tookOver: held.tookOver };
	}
}
