/** Opens the store (results + journal over one folder, one shared health), and the process-wide instance. */
import { settings, type StoreConfig } from '../config';
import { logWarning } from '../n8n/log';
import { processWide } from '../processWide';
import { processRedis } from '../redis';
import { cacacheBackend } from './cacheBackend';
import { sharedJournalBackend } from './sharedJournalBackend';
import type { CacheBackend } from './cacheBackend';
import { JobJournal } from './journal';
import { ResultStore } from './resultStore';
import { StoreFaults, type StoreHealth } from './storeHealth';

export interface Store {
	config: StoreConfig;
	results: ResultStore;
	journal: JobJournal;
	/** Not ok once a write, read or prune failed (until a later write succeeds); `reason` says why. */
	health(): StoreHealth;
	/** Prunes results (TTL, max bytes) and journal (TTL); never rejects (failures show in `health()`). */
	prune(): Promise<void>;
}

export interface OpenStoreOptions {
	backend?: CacheBackend;
	/** The journal's backend (default: `backend`); queue mode: one mirrored to Redis (sharedJournalBackend). */
	journalBackend?: CacheBackend;
	now?: () => number;
	/** Where the single warning goes (default: the package logger). */
	warn?: (message: string) => void;
}

/** Opens a store over `config.dir` (nothing touches the disk until the first call). */
export function openStore(config: StoreConfig, options: OpenStoreOptions = {}): Store {
	const faults = new StoreFaults(options.warn ?? logWarning);
	const shared = { backend: options.backend, now: options.now, faults };
	const results = new ResultStore(config.dir, { ...shared, maxBytes: config.maxBytes, ttlMs: config.ttlMs, spareRecentMs: config.spareRecentMs });
	const journal = new JobJournal(config.dir, { ...shared, backend: options.journalBackend ?? options.backend, ttlMs: config.ttlMs });
	return {
		config,
		results,
		journal,
		health: () => faults.health(),
		prune: async () => {
			await results.prune();
			await journal.prune();
		},
	};
}

/**
 * The process-wide store (shared by every copy of the package: src/processWide.ts), configured from the
 * settings; with Redis configured (COMFLY_REDIS_URL or n8n's queue mode), its journal mirrored to the
 * process's shared Redis so every worker sees it. Its first use starts one prune in the background (old
 * results and journal records of earlier runs).
 */
export function getStore(): Store {
	return processWide('store', () => {
		const config = settings().store;
		const redis = processRedis();
		const store = openStore(config, redis ? { journalBackend: sharedJournalBackend(cacacheBackend, redis, config.ttlMs) } : {});
		void store.prune();
		return store;
	});
}
