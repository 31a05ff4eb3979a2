/**
 * The whole store folder within its size bound (COMFLY_STORE_MAX_MB) while n8n runs: results, journal, kept
 * downloads (Cache Off, or a store fault) and claims together. Pruned in the background down to 7/8 of the bound
 * each time an eighth of it was written (so it stays within the bound between prunes), and at least every
 * PRUNE_EVERY_MS while it grows at all, never by a scan per job; one process of a machine prunes a folder at a time (the `store-prune` claim). What a running batch
 * still needs is never removed: results and files in use (ResultsInUse), results another process wrote within
 * `spareRecentMs`, download files still being written, journal records of jobs not settled (`submitting`,
 * `submitted`) and claims. Order when over the bound: expired things, then the oldest results not needed, then
 * delivered download files, then settled journal records whose result is gone.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

import type { Store } from './openStore';
import { describeStoreError, type StoreFaults } from './storeHealth';

/** Folders of kept downloads inside the store folder (image and video downloads stream there). */
export const DOWNLOAD_FOLDERS = ['image-downloads', 'video-downloads'] as const;
/** The store is pruned at least this often while it grows. */
export const PRUNE_EVERY_MS = 10 * 60_000;
/** A settled journal record younger than this is kept under pressure (a waiting claimant may still read it). */
const SETTLED_KEPT_MS = 60_000;
const PRUNE_LOCK = 'store-prune';

/** What the last prune found (tests and the benchmark). */
export type StoreSize = Awaited<ReturnType<StoreBound['fit']>>;

export class StoreBound {
	private growth = 0;
	private lastPrune: number;
	private running?: Promise<StoreSize | undefined>;

	constructor(private readonly parts: Pick<Store, 'config' | 'results' | 'journal' | 'claims' | 'inUse'> & { faults: StoreFaults; now: () => number }) {
		this.lastPrune = parts.now();
	}

	/** `bytes` were written into the folder: past an eighth of the bound (or PRUNE_EVERY_MS), a prune starts in the background. */
	grew(bytes: number): void {
		this.growth += bytes;
		if (this.due() && !this.running) void this.prune();
	}

	/** Prunes the folder now (joins a prune in progress); never rejects (failures show in the store's health). */
	prune(): Promise<StoreSize | undefined> {
		this.running ??= this.pruneOnce().finally(() => {
			this.running = undefined;
			if (this.due()) void this.prune(); // what was written while it ran
		});
		return this.running;
	}

	private due(): boolean {
		return this.growth > this.parts.config.maxBytes / 8 || (this.growth > 0 && this.parts.now() - this.lastPrune > PRUNE_EVERY_MS);
	}

	private async pruneOnce(): Promise<StoreSize | undefined> {
		this.growth = 0;
		this.lastPrune = this.parts.now();
		const lock = await this.parts.claims.tryClaim(PRUNE_LOCK);
		if (!lock) return undefined; // another process of this machine prunes the folder now
		try {
			return await this.fit();
		} catch (error) {
			this.parts.faults.fault(describeStoreError('pruning', this.parts.config.dir, error));
			return undefined;
		} finally {
			await lock.release();
		}
	}

	private async fit() {
		const { config, results, journal, claims } = this.parts;
		const target = config.maxBytes - Math.floor(config.maxBytes / 8); // room for the next eighth before the next prune
		await claims.sweep();
		await journal.prune();
		let journalBytes = await journal.bytes();
		const downloads = await this.downloads();
		let downloadBytes = downloads.reduce((sum, d) => sum + d.bytes, 0);
		let resultBytes = (await results.prune(target - journalBytes - downloadBytes))?.keptBytes ?? 0;
		const over = () => resultBytes + journalBytes + downloadBytes > target;
		if (over()) downloadBytes -= await this.dropDownloads(downloads, resultBytes + journalBytes + downloadBytes - target);
		if (over()) {
			const now = this.parts.now();
			const kept = await results.keys();
			await journal.prune({ drop: (r) => r.updatedAt < now - SETTLED_KEPT_MS && (r.state === 'failed' || (r.state === 'stored' && !kept.has(r.jobKey))) });
			journalBytes = await journal.bytes();
			resultBytes = (await results.prune(target - journalBytes - downloadBytes))?.keptBytes ?? resultBytes;
		}
		return { resultBytes, journalBytes, downloadBytes, totalBytes: resultBytes + journalBytes + downloadBytes };
	}

	/** Every finished download file kept in the folder (a `.part` is still being written: never counted out). */
	private async downloads() {
		const found: Array<{ file: string; bytes: number; mtimeMs: number }> = [];
		for (const folder of DOWNLOAD_FOLDERS) {
			const dir = path.join(this.parts.config.dir, folder);
			for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
				const file = path.join(dir, name);
				const info = await fs.stat(file).catch(() => undefined);
				if (info?.isFile()) found.push({ file, bytes: info.size, mtimeMs: info.mtimeMs });
			}
		}
		return found.sort((a, b) => a.mtimeMs - b.mtimeMs);
	}

	/** Removes delivered download files, oldest first, until `excess` bytes went; resolves with the bytes removed. */
	private async dropDownloads(oldestFirst: Awaited<ReturnType<StoreBound['downloads']>>, excess: number): Promise<number> {
		const spareFrom = this.parts.now() - (this.parts.config.spareRecentMs ?? 0);
		let freed = 0;
		for (const download of oldestFirst) {
			if (freed >= excess) break;
			if (download.file.endsWith('.part') || this.parts.inUse.has(download.file)) continue;
			if (!this.parts.inUse.isOwnFile(download.file) && download.mtimeMs >= spareFrom) continue; // another process's, maybe not delivered yet
			await fs.rm(download.file, { force: true });
			this.parts.inUse.forgetFile(download.file);
			freed += download.bytes;
		}
		return freed;
	}
}
