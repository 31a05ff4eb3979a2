/** Opens the store (results + journal over one folder, one shared health), and the process-wide instance. */
import { logWarning } from '../n8n/log';
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
}

export interface OpenStoreOptions {
	backend?: CacheBackend;
	now?: () => number;
	/** Where the single warning goes (default: the package logger). */
	warn?: (message: string) => void;
}

/** Opens a store over `config.dir` (nothing touches the disk until the first call). */
export function openStore(config: StoreConfig, options: OpenStoreOptions = {}): Store {
	const faults = new StoreFaults(options.warn ?? logWarning);
	const shared = { backend: options.backend, now: options.now, faults };
	const results = new ResultStore(config.dir, { ...shared, maxBytes: config.maxBytes, ttlMs: config.ttlMs, spareRecentMs: config.spareRecentMs });
	const journal = new JobJournal(config.dir, { ...shared, ttlMs: config.ttlMs });
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
		store = openStore(readStoreConfig(process.env, logWarning));
		holder[STORE_SYMBOL] = store;
		void store.prune();
	}
	return store;
}
