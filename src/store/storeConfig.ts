/**
 * Where the durable result store lives and how big it may grow, read from the environment (pure: no globals).
 * The default folder follows n8n's own user folder (`@n8n/config` getN8nFolder: `N8N_USER_FOLDER`, else the
 * home directory, then `.n8n`), so the store lands inside n8n's folder: `<that>/.n8n/flux-concurrent/`.
 */
import * as path from 'node:path';
import { z } from 'zod';

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
/** The pool's defaults for COMFLY_RESULT_TTL_SECONDS (src/pool/config.ts). */
const DEFAULT_RESULT_TTL_SECONDS = 3600;
const MAX_RESULT_TTL_SECONDS = 7 * 24 * 3600;
const MB = 1024 * 1024;
const DAY_MS = 24 * 3600 * 1000;
const PREFIX = '[n8n-nodes-flux-concurrent]';

type Env = Readonly<Record<string, string | undefined>>;

export interface StoreConfigOptions {
	/** Defaults to `process.platform` (n8n reads USERPROFILE on win32, HOME elsewhere). */
	platform?: NodeJS.Platform;
	/** Defaults to `process.cwd()` (n8n's last resort, and the base of a relative folder). */
	cwd?: string;
}

const integerText = z
	.string()
	.trim()
	.regex(/^[+-]?\d+$/)
	.transform(Number);

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
 * Reads the store configuration. Unset or blank → default; out of range → clamped;
 * not an integer → default plus one `warn` call naming the variable.
 */
export function readStoreConfig(
	env: Env,
	warn: (message: string) => void,
	options: StoreConfigOptions = {},
): StoreConfig {
	const int = (name: string, fallback: number, max: number): number => {
		const raw = env[name];
		if (raw === undefined || raw.trim() === '') return fallback;
		const parsed = integerText.safeParse(raw);
		if (!parsed.success) {
			warn(`${PREFIX} ${name}=${JSON.stringify(raw)} is not an integer; using ${fallback}.`);
			return fallback;
		}
		return Math.min(max, Math.max(1, parsed.data));
	};
	return {
		dir: storeDir(env, options),
		maxBytes: int('COMFLY_STORE_MAX_MB', DEFAULT_STORE_MAX_MB, MAX_STORE_MB) * MB,
		ttlMs: int('COMFLY_STORE_TTL_DAYS', DEFAULT_STORE_TTL_DAYS, MAX_TTL_DAYS) * DAY_MS,
		spareRecentMs: int('COMFLY_RESULT_TTL_SECONDS', DEFAULT_RESULT_TTL_SECONDS, MAX_RESULT_TTL_SECONDS) * 1000,
	};
}
