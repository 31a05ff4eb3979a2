import { z } from 'zod';

export const LOG_PREFIX = '[n8n-nodes-flux-concurrent]';

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

const integerText = z
	.string()
	.trim()
	.regex(/^[+-]?\d+$/)
	.transform(Number);

/**
 * Reads the pool configuration from `env` (pure: no globals).
 * Unset or blank → default; out of range → clamped; not an integer → default plus one `warn` call.
 */
export function readPoolConfig(
	env: Readonly<Record<string, string | undefined>>,
	warn: (message: string) => void,
): PoolConfig {
	const int = (name: string, fallback: number, min: number, max: number): number => {
		const raw = env[name];
		if (raw === undefined || raw.trim() === '') return fallback;
		const parsed = integerText.safeParse(raw);
		if (!parsed.success) {
			warn(`${LOG_PREFIX} ${name}=${JSON.stringify(raw)} is not an integer; using ${fallback}.`);
			return fallback;
		}
		return Math.min(max, Math.max(min, parsed.data));
	};
	const size = (prefix: string, defaultWorkers: number): PoolSize => {
		const workers = int(`${prefix}_CONCURRENCY`, defaultWorkers, 1, 128);
		return { workers, pending: int(`${prefix}_PENDING`, workers, 0, 128) };
	};
	return {
		image: size('COMFLY_IMAGE', DEFAULT_IMAGE_WORKERS),
		video: size('COMFLY_VIDEO', DEFAULT_VIDEO_WORKERS),
		resultTtlMs: int('COMFLY_RESULT_TTL_SECONDS', DEFAULT_RESULT_TTL_SECONDS, 1, MAX_TTL_SECONDS) * 1000,
		resultMaxBytes: int('COMFLY_RESULT_MAX_MB', DEFAULT_RESULT_MAX_MB, 1, MAX_RESULT_MB) * MB,
	};
}
