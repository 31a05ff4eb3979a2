/**
 * The pool's settings: `COMFLY_IMAGE_CONCURRENCY` / `_PENDING`, `COMFLY_VIDEO_CONCURRENCY` / `_PENDING`,
 * `COMFLY_RESULT_TTL_SECONDS`, `COMFLY_RESULT_MAX_MB` (pure: no globals; see PRODUCT.md for the rules).
 */
import { readInteger, type Env, type Warn } from './env';

/** Size of one pool: at most `workers` run, at most `workers + pending` are admitted. */
export interface PoolSize {
	workers: number;
	pending: number;
}

export interface PoolConfig {
	image: PoolSize;
	video: PoolSize;
	/** How long a finished job's record (and result) is kept. */
	resultTtlMs: number;
	/** Bound on the bytes of results kept: collected results are dropped (oldest first) to stay within it; uncollected ones never before their TTL. */
	resultMaxBytes: number;
}

export const DEFAULT_IMAGE_WORKERS = 30;
export const DEFAULT_VIDEO_WORKERS = 10;
export const DEFAULT_RESULT_TTL_SECONDS = 3600;
export const DEFAULT_RESULT_MAX_MB = 512;
const MAX_TTL_SECONDS = 7 * 24 * 3600;
const MAX_RESULT_MB = 64 * 1024;
const MB = 1024 * 1024;

/** `COMFLY_RESULT_TTL_SECONDS` (3600 s, 1 s – 7 days) in ms: the pool keeps results this long, the store spares them. */
export function readResultTtlMs(env: Env, warn: Warn): number {
	return readInteger(env, 'COMFLY_RESULT_TTL_SECONDS', DEFAULT_RESULT_TTL_SECONDS, 1, MAX_TTL_SECONDS, warn) * 1000;
}

/**
 * Reads the pool configuration from `env`. Unset or blank → default; out of range → clamped, plus one `warn` call;
 * not an integer → default plus one `warn` call. `resultTtlMs`, when given, is used instead of reading COMFLY_RESULT_TTL_SECONDS again.
 */
export function readPoolConfig(env: Env, warn: Warn, resultTtlMs?: number): PoolConfig {
	const size = (prefix: string, defaultWorkers: number): PoolSize => {
		const workers = readInteger(env, `${prefix}_CONCURRENCY`, defaultWorkers, 1, 128, warn);
		return { workers, pending: readInteger(env, `${prefix}_PENDING`, workers, 0, 128, warn) };
	};
	return {
		image: size('COMFLY_IMAGE', DEFAULT_IMAGE_WORKERS),
		video: size('COMFLY_VIDEO', DEFAULT_VIDEO_WORKERS),
		resultTtlMs: resultTtlMs ?? readResultTtlMs(env, warn),
		resultMaxBytes: readInteger(env, 'COMFLY_RESULT_MAX_MB', DEFAULT_RESULT_MAX_MB, 1, MAX_RESULT_MB, warn) * MB,
	};
}
