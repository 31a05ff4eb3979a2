/** Opens the store (results + journal over one folder, one shared health), and the process-wide instance. */
import { readRedisTarget, RedisConnection } from '../accountLimit';
import { logWarning } from '../n8n/log';
import { cacacheBackend } from './cacheBackend';
import { sharedJournalBackend } from './sharedJournalBackend';
import type { CacheBackend } from './cacheBackend';
import { JobJournal } from './journal';
import { ResultStore } from './resultStore';
import { type StoreConfig, readStoreConfig } from './storeConfig';
import { StoreFaults, type StoreHealth } from './storeHealth';

export interface Store {
	config: StoreConfig;
	results: ResultStore;
	journal: JobJournal;
	/** Not ok once a write, read or prune failed (until a later write succeeds); `reason` says why. */
	health(): StoreHealth;
	/** Prunes results (TTL, max bytes) and journal (TTL); never rejects (failures show in `health()`). */
	prune(): Promise<void>;
	/** Closes the journal's Redis connection, if any (tests; n8n keeps the store for the process's life). */
	close(): Promise<void>;
}

export interface OpenStoreOptions {
	backend?: CacheBackend;
	/** The journal's backend (default: `backend`); queue mode: one mirrored to Redis (sharedJournalBackend). */
	journalBackend?: CacheBackend;
	now?: () => number;
	/** Where the single warning goes (default: the package logger). */
	warn?: (message: string) => void;
	/** Called by `close()` (the journal's Redis connection). */
	onClose?: () => Promise<void>;
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
		close: async () => {
			await options.onClose?.();
		},
	};
}

const STORE_SYMBOL = Symbol.for('n8n-nodes-flux-concurrent.store');
type GlobalWithStore = typeof globalThis & { [STORE_SYMBOL]?: Store };

/**
 * The process-wide store, configured once from `process.env` (garbage settings: one warning, defaults).
 * Its first use starts one prune in the background (old results and journal records of earlier runs).
 */
export function getStore(): Store {
	const holder = globalThis as GlobalWithStore;
	let store = holder[STORE_SYMBOL];
	if (store === undefined) {
		const config = readStoreConfig(process.env, logWarning);
		store = openStore(config, sharedJournal(config.ttlMs));
		holder[STORE_SYMBOL] = store;
		void store.prune();
	}
	return store;
}

/**
 * With Redis configured (COMFLY_REDIS_URL or n8n's queue mode), the journal mirrored to Redis so every worker
 * sees it; a bad Redis setting is warned about by the account limiter and leaves the local journal alone.
 */
function sharedJournal(ttlMs: number): OpenStoreOptions {
	let target;
	try {
		target = readRedisTarget(process.env);
	} catch {
		return {};
	}
	if (target === undefined) return {};
	const connection = new RedisConnection(target);
	return {
		journalBackend: sharedJournalBackend(cacacheBackend, connection.client, ttlMs, () => connection.ready()),
		onClose: () => connection.close(),
	};
}
