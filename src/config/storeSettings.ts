/**
 * Where the durable result store lives and how big it may grow (pure: no globals). The default folder follows
 * n8n's own user folder (`@n8n/config` getN8nFolder: `N8N_USER_FOLDER`, else the home directory, then `.n8n`),
 * so the store lands inside n8n's folder: `<that>/.n8n/flux-concurrent/`.
 */
import * as path from 'node:path';

import { readInteger, type Env, type Warn } from './env';
import { readResultTtlMs } from './poolSettings';

export interface StoreConfig {
	/** Absolute folder of the store (results and journal live below it). */
	dir: string;
	/** Bound on the bytes of stored results; the oldest go first. */
	maxBytes: number;
	/** Stored results and journal records older than this are dropped. */
	ttlMs: number;
	/**
	 * Results younger than this are never evicted by `maxBytes` (only by `ttlMs`): the pool may hold just their
	 * reference until a collector reads them, for up to its result TTL (COMFLY_RESULT_TTL_SECONDS). Default 0.
	 */
	spareRecentMs?: number;
}

export const DEFAULT_STORE_MAX_MB = 2048;
export const DEFAULT_STORE_TTL_DAYS = 30;
/** Folder of the store inside n8n's `.n8n` folder. */
export const STORE_SUBFOLDER = 'flux-concurrent';
const MAX_STORE_MB = 1024 * 1024;
const MAX_TTL_DAYS = 3650;
const MB = 1024 * 1024;
const DAY_MS = 24 * 3600 * 1000;

export interface StoreConfigOptions {
	/** Defaults to `process.platform` (n8n reads USERPROFILE on win32, HOME elsewhere). */
	platform?: NodeJS.Platform;
	/** Defaults to `process.cwd()` (n8n's last resort, and the base of a relative folder). */
	cwd?: string;
	/** The pool's result TTL already read (else COMFLY_RESULT_TTL_SECONDS is read here). */
	resultTtlMs?: number;
}

/** n8n's user folder exactly as n8n resolves it: `N8N_USER_FOLDER ?? HOME ?? cwd`, then `.n8n`. */
export function n8nFolder(env: Env, options: StoreConfigOptions = {}): string {
	const platform = options.platform ?? process.platform;
	const cwd = options.cwd ?? process.cwd();
	const home = env.N8N_USER_FOLDER ?? env[platform === 'win32' ? 'USERPROFILE' : 'HOME'] ?? cwd;
	return path.resolve(cwd, path.join(home, '.n8n'));
}

/** The store folder: `COMFLY_STORE_DIR` (blank = unset), else `<n8n folder>/flux-concurrent`. */
export function storeDir(env: Env, options: StoreConfigOptions = {}): string {
	const cwd = options.cwd ?? process.cwd();
	const explicit = env.COMFLY_STORE_DIR?.trim();
	if (explicit) return path.resolve(cwd, explicit);
	return path.join(n8nFolder(env, options), STORE_SUBFOLDER);
}

/**
 * Reads the store configuration. Unset or blank → default; out of range → clamped, plus one `warn` call naming the
 * variable; not an integer → default plus one `warn` call naming the variable.
 */
export function readStoreConfig(env: Env, warn: Warn, options: StoreConfigOptions = {}): StoreConfig {
	return {
		dir: storeDir(env, options),
		maxBytes: readInteger(env, 'COMFLY_STORE_MAX_MB', DEFAULT_STORE_MAX_MB, 1, MAX_STORE_MB, warn) * MB,
		ttlMs: readInteger(env, 'COMFLY_STORE_TTL_DAYS', DEFAULT_STORE_TTL_DAYS, 1, MAX_TTL_DAYS, warn) * DAY_MS,
		spareRecentMs: options.resultTtlMs ?? readResultTtlMs(env, warn),
	};
}
