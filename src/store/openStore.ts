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
	return {
		config,
		results: new ResultStore(config.dir, { ...shared, maxBytes: config.maxBytes, ttlMs: config.ttlMs }),
		journal: new JobJournal(config.dir, { ...shared, ttlMs: config.ttlMs }),
		health: () => faults.health(),
	};
}

const STORE_SYMBOL = Symbol.for('n8n-nodes-flux-concurrent.store');
type GlobalWithStore = typeof globalThis & { [STORE_SYMBOL]?: Store };

/** The process-wide store, configured once from `process.env` (garbage settings: one warning, defaults). */
export function getStore(): Store {
	const holder = globalThis as GlobalWithStore;
	holder[STORE_SYMBOL] ??= openStore(readStoreConfig(process.env, logWarning));
	return holder[STORE_SYMBOL];
}
