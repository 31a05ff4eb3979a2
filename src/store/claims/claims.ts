/**
 * One paid job, one owner: an atomic claim per job key, taken before anything about the job is decided or sent,
 * held until its outcome is in the store and the journal. Always through the store folder (every process of a
 * machine, fileClaims.ts), and also through Redis when it is configured (processes on other machines,
 * redisClaims.ts; while Redis is not usable, the folder claim alone once the outage is past `redisGraceMs`). A
 * second claimant waits for the owner's outcome (`waited`), then reads it; a dead owner's claim lapses and is taken over, and the owner
 * that was silent learns it (`stillHeld`) before it sends: it then sends nothing and waits for the new owner's
 * outcome (src/fluxN8n/ownedJob.ts). A store folder
 * that cannot hold a claim (read-only, full) is reported (onFault) and the claim is made in the machine's spare
 * folder instead (spareFolder.ts); where that fails too the job goes on unclaimed: a claim never stops a job.
 */
import * as path from 'node:path';

import type { SharedRedis } from '../../redis';
import type { HeldLock } from '../../coordination/folderLock';
import { spareFolder } from '../spareFolder';
import type { ProcessOwner as ClaimOwner } from '../../coordination/ownerLiveness';
import { Wakeups } from '../../coordination/wakeups';
import { FileClaims } from './fileClaims';
import { RedisClaims } from './redisClaims';

/** A held claim, in the folder or in Redis: `held()` is false once another owner took it over (this process was silent past the claim's lapse or lease). */
export type HeldClaim = Pick<HeldLock, 'held' | 'release'>;

/** Folder of the claims inside the store folder. */
export const CLAIMS_SUBFOLDER = 'claims';

/** How claims are kept and judged (production values; tests shorten them). */
export const DEFAULT_CLAIM_TIMING = {
	/** How often a held Redis claim's lease is extended (a file claim is touched every quarter of `fileLapseMs`). */
	heartbeatMs: 2_000,
	/** A file claim not touched for this long, whose owner cannot be seen alive on this machine, has lapsed. */
	fileLapseMs: 20_000,
	/** The lease of a Redis claim: it lapses this long after its owner last renewed it. */
	redisLeaseMs: 10_000,
	/**
	 * After Redis answers again, new Redis claims wait this long, so the owners of earlier ones re-assert them first;
	 * and a new claim waits this long for a Redis not usable before it goes on with its folder claim alone.
	 */
	redisGraceMs: 5_000,
	/** The first and the longest pause of a claimant waiting for the owner's outcome. */
	waitMinMs: 20,
	waitMaxMs: 250,
};

export type ClaimTiming = typeof DEFAULT_CLAIM_TIMING;

/** A job key's claim; its `release` lets the key go (a waiting claimant takes it) and never rejects. */
export interface ClaimHandle extends HeldClaim {
	/** True when another owner held the key first: its outcome is in the store and the journal now. */
	readonly waited: boolean;
	/** Where the claim holds: the folder, Redis as well, or nowhere (the folder could not hold one). */
	readonly through: { folder: boolean; redis: boolean };
}

export interface ClaimsOptions {
	redis?: SharedRedis;
	timing?: Partial<ClaimTiming>;
	/** A claim could not be made in the folder (e.g. read-only, disk full): the job goes on unclaimed. */
	onFault?: (operation: string, error: unknown) => void;
	/** A held claim was taken over by another owner. */
	onLost?: (key: string, where: 'folder' | 'redis') => void;
	owner?: ClaimOwner;
	now?: () => number;
}

export class Claims {
	readonly dir: string;
	private readonly files: FileClaims;
	/** The machine's claims while the store folder cannot hold one. */
	private readonly spareFiles: FileClaims;
	private readonly redis?: RedisClaims;

	constructor(storeDir: string, options: ClaimsOptions = {}) {
		this.dir = path.join(storeDir, CLAIMS_SUBFOLDER);
		const timing = { ...DEFAULT_CLAIM_TIMING, ...options.timing };
		const wakeups = new Wakeups();
		const onFault = options.onFault ?? (() => undefined);
		this.files = new FileClaims(this.dir, timing, wakeups, onFault, (key) => options.onLost?.(key, 'folder'), options.owner, options.now);
		this.spareFiles = new FileClaims(path.join(spareFolder(storeDir), CLAIMS_SUBFOLDER), timing, wakeups, onFault, (key) => options.onLost?.(key, 'folder'), options.owner, options.now);
		if (options.redis) this.redis = new RedisClaims(options.redis, timing, wakeups, (key) => options.onLost?.(key, 'redis'), options.owner, options.now);
	}

	/** Claims `key`: the folder first, then Redis (when configured). Rejects with the signal's reason (nothing held). */
	async acquire(key: string, signal?: AbortSignal): Promise<ClaimHandle> {
		let folder = await this.files.acquire(key, signal);
		if (!folder.claim) {
			const spare = await this.spareFiles.acquire(key, signal);
			folder = { claim: spare.claim, waited: folder.waited || spare.waited };
		}
		const redis = (await this.redis?.acquire(key, signal).catch(async (error: unknown) => {
			await folder.claim?.release(); // rejects holding nothing
			throw error;
		})) ?? { claim: undefined, waited: false };
		const parts = [redis.claim, folder.claim].filter((c): c is HeldClaim => c !== undefined);
		return {
			waited: folder.waited || redis.waited,
			through: { folder: folder.claim !== undefined, redis: redis.claim !== undefined },
			held: () => parts.every((part) => part.held()),
			release: async () => {
				for (const part of parts) await part.release().catch(() => undefined);
			},
		};
	}

	/**
	 * False when this process held `key`'s claim and another owner took it over (checked now, in the folder and in
	 * Redis): right before a paid body leaves, a job that lost its claim must not send it. True otherwise.
	 */
	async stillHeld(key: string): Promise<boolean> {
		return (await Promise.all([this.files.stillHeld(key), this.spareFiles.stillHeld(key), this.redis?.stillHeld(key) ?? true])).every(Boolean);
	}

	/** A folder claim of `key` if nobody holds it now (no wait, no Redis): e.g. one process of a machine prunes. */
	async tryClaim(key: string): Promise<{ release(): Promise<void> } | undefined> {
		const made = await this.files.claim(key);
		return made === 'held' ? undefined : made?.claim;
	}

	/** Runs `work` under the claim of `key` (released however it ends); `work` learns whether the claim waited. */
	async withClaim<T>(key: string, signal: AbortSignal | undefined, work: (claim: ClaimHandle) => Promise<T>): Promise<T> {
		const claim = await this.acquire(key, signal);
		try {
			return await work(claim);
		} finally {
			await claim.release();
		}
	}

	/** Removes claim files whose owner is gone (for the store's prune). */
	async sweep(): Promise<void> {
		await this.files.sweep();
		await this.spareFiles.sweep();
	}

	/** How many folder claims this process holds. */
	stats(): { folder: number } {
		return { folder: this.files.size + this.spareFiles.size };
	}
}
