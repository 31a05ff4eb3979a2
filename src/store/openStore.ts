/**
 * Opens the store (results, journal and claims over one folder, one shared health, one size bound for the whole
 * folder), and the process-wide instance.
 */
import * as path from 'node:path';

import { settings, type StoreConfig } from '../config';
import { logWarning } from '../logger';
import { processWide } from '../processWide';
import type { DiskSync } from '../coordination/atomicFile';
import { thisOwner } from '../coordination/ownerLiveness';
import { replayQueueOf } from '../coordination/replayQueue';
import { processRedis, type SharedRedis } from '../redis';
import type { CacheBackend } from './cacheBackend';
import { Claims, type ClaimTiming } from './claims/claims';
import { JOURNAL_SUBFOLDER, JobJournal } from './journal';
import { redisJournalMirror } from './journalMirror';
import { ResultStore } from './resultStore';
import { ResultsInUse } from './resultsInUse';
import { spareFolder, spareJournal } from './spareFolder';
import { StoreBound, type StoreSize } from './storeBound';
import { StoreFaults, describeStoreError, type StoreHealth } from './storeHealth';

export interface Store {
	config: StoreConfig;
	results: ResultStore;
	journal: JobJournal;
	/** One paid job, one owner: the claim on a job key (the folder, and Redis when configured). */
	claims: Claims;
	/** What running batches of this process still need: never removed by the size bound. */
	inUse: ResultsInUse;
	/** Not ok while a write, read or prune fails (until a later write succeeds); `reason` says why. */
	health(): StoreHealth;
	/** The report's warnings: a fault now or recently, a damaged or lost journal. */
	warnings(): string[];
	/** Prunes the whole folder (TTL, then the size bound); never rejects (failures show in `health()`). */
	prune(): Promise<StoreSize | undefined>;
}

export interface OpenStoreOptions {
	backend?: CacheBackend;
	now?: () => number;
	/** Where the single warning goes (default: the package logger). */
	warn?: (message: string) => void;
	/** The shared Redis (queue mode): the journal is mirrored there and claims are taken there too. */
	redis?: SharedRedis;
	/** Claim timing (tests shorten it). */
	claimTiming?: Partial<ClaimTiming>;
	/** How the journal's durable writes are synced (tests hold or count the syncs). */
	journalSync?: DiskSync;
}

/** Opens a store over `config.dir` (nothing touches the disk until the first call). */
export function openStore(config: StoreConfig, options: OpenStoreOptions = {}): Store {
	const now = options.now ?? Date.now;
	const faults = new StoreFaults(options.warn ?? logWarning, now);
	const inUse = new ResultsInUse(config.spareRecentMs || 60 * 60_000, now); // the pool's result TTL (0: the default hour)
	const grew = (bytes: number) => bound.grew(bytes); // the bound is made last (nothing is written before)
	const results = new ResultStore(config.dir, {
		backend: options.backend,
		now,
		faults,
		maxBytes: config.maxBytes,
		ttlMs: config.ttlMs,
		spareRecentMs: config.spareRecentMs,
		writer: thisOwner().token,
		inUse: (key) => inUse.has(key),
		onGrowth: grew,
	});
	const mirror = options.redis ? redisJournalMirror(options.redis, config.ttlMs) : undefined;
	const spare = spareJournal(path.join(spareFolder(config.dir), JOURNAL_SUBFOLDER));
	// One replay queue per Redis connection: what the journal wrote while Redis was away reaches it before a claim let go meanwhile is released there.
	const replays = options.redis ? replayQueueOf(options.redis) : undefined;
	const journal = new JobJournal(config.dir, { now, faults, ttlMs: config.ttlMs, mirror, replays, spare, onGrowth: grew, sync: options.journalSync });
	const claims = new Claims(config.dir, {
		redis: options.redis,
		timing: options.claimTiming,
		now,
		onFault: (operation, error) => faults.fault(describeStoreError(operation, config.dir, error)),
		onLost: (key, where) =>
			faults.noteOnce(`claim-lost:${key}`, `The claim on job ${key.slice(0, 12)}… (${where === 'redis' ? 'in Redis' : `in ${config.dir}`}) was taken over by another process while this one still ran it (it was silent past the claim's lapse).`),
	});
	const bound = new StoreBound({ config, results, journal, claims, inUse, faults, now });
	return {
		config,
		results,
		journal,
		claims,
		inUse,
		health: () => faults.health(),
		warnings: () => faults.warnings(),
		prune: () => bound.prune(),
	};
}

/**
 * The process-wide store (shared by every copy of the package: src/processWide.ts), configured from the
 * settings; with Redis configured (COMFLY_REDIS_URL or n8n's queue mode), its journal mirrored to the
 * process's shared Redis and its claims taken there too. Its first use starts one prune in the background.
 */
export function getStore(): Store {
	return processWide('store', () => {
		const store = openStore(settings().store, { redis: processRedis() });
		void store.prune();
		return store;
	});
}
