/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/config knows nothing of n8n nodes: only an unexpected error (a bug) is rethrown as is. */
/**
 * Every environment variable the package reads, read in one place, once per process: `settings()` reads
 * `process.env` on first use (one warning in n8n's log per bad value, naming the variable, the value and the
 * value used instead: the clamped value or the default; never a password) and every later call returns the same typed {@link Settings}. Tests that change
 * the environment call `reloadSettings()`. Nothing else in src/ reads `process.env`.
 */
import { z } from 'zod';

import { logWarning, PACKAGE_LOG_PREFIX as LOG_PREFIX } from '../logger';
import { processWide, resetProcessWide } from '../processWide';
import type { Env, ReadTextFile, Warn } from './env';
import { readPoolConfig, readResultTtlMs, type PoolConfig } from './poolSettings';
import { readRedisTarget, RedisConfigError, type RedisTarget } from './redisTarget';
import { readStoreConfig, type StoreConfig, type StoreConfigOptions } from './storeSettings';

export interface RedisSettings {
	/** The Redis to share limits and the journal through; undefined: none configured, or its setting is bad. */
	target?: RedisTarget;
	/** Why the configured Redis is not used (a bad value): logged once, and in every collector report. */
	problem?: string;
}

export interface Settings {
	/** COMFLY_IMAGE_* / COMFLY_VIDEO_* pool sizes, COMFLY_RESULT_TTL_SECONDS, COMFLY_RESULT_MAX_MB. */
	pool: PoolConfig;
	/** COMFLY_STORE_DIR (else N8N_USER_FOLDER / HOME), COMFLY_STORE_MAX_MB, COMFLY_STORE_TTL_DAYS. */
	store: StoreConfig;
	/** COMFLY_POLL_RATE: status polls per second per account. */
	pollRate: number;
	/** COMFLY_REDIS_URL, else EXECUTIONS_MODE=queue with QUEUE_BULL_REDIS_* (and *_FILE). */
	redis: RedisSettings;
}

export interface ReadSettingsOptions extends Pick<StoreConfigOptions, 'platform' | 'cwd'> {
	/** Reads a `*_FILE` variable's file (default: the file system). */
	readFile?: ReadTextFile;
}

/** What the package does without its Redis (the default a bad Redis setting falls back to). */
export const WITHOUT_REDIS = 'Redis is not used: the account-wide limit is per process and the journal is local';

/** Default: 25 polls per second per account (see bench/README.md: what 30 workers of 2 s jobs need). */
export const DEFAULT_POLL_RATE = 25;
const MAX_POLL_RATE = 1000;

const rateText = z.string().trim().regex(/^\d+$/, 'a whole number of polls per second').transform(Number).pipe(z.number().int().min(1).max(MAX_POLL_RATE));

/**
 * `COMFLY_POLL_RATE` (polls per second per account): unset or blank → {@link DEFAULT_POLL_RATE};
 * anything but an integer 1–1000 → the default plus one `warn` call naming the variable.
 */
export function readPollRate(env: Env, warn: Warn): number {
	const raw = env.COMFLY_POLL_RATE;
	if (raw === undefined || raw.trim() === '') return DEFAULT_POLL_RATE;
	const parsed = rateText.safeParse(raw);
	if (parsed.success) return parsed.data;
	warn(`${LOG_PREFIX} COMFLY_POLL_RATE=${JSON.stringify(raw.slice(0, 40))} is not a whole number of polls per second from 1 to ${MAX_POLL_RATE}; using ${DEFAULT_POLL_RATE}.`);
	return DEFAULT_POLL_RATE;
}

function readRedisSettings(env: Env, warn: Warn, readFile?: ReadTextFile): RedisSettings {
	try {
		return { target: readRedisTarget(env, readFile) };
	} catch (error) {
		if (!(error instanceof RedisConfigError)) throw error;
		const problem = `${error.message}; ${WITHOUT_REDIS}.`;
		warn(problem);
		return { problem };
	}
}

/** Reads every setting from `env` (pure: warnings go to `warn`, one per bad value). */
export function readSettings(env: Env, warn: Warn, options: ReadSettingsOptions = {}): Settings {
	const resultTtlMs = readResultTtlMs(env, warn);
	return {
		pool: readPoolConfig(env, warn, resultTtlMs),
		store: readStoreConfig(env, warn, { platform: options.platform, cwd: options.cwd, resultTtlMs }),
		pollRate: readPollRate(env, warn),
		redis: readRedisSettings(env, warn, options.readFile),
	};
}

/** The process's settings, read from `process.env` on first use (bad values: one warning each in n8n's log). */
export function settings(): Settings {
	return processWide('settings', () => readSettings(process.env, logWarning));
}

/**
 * Tests only: reads `process.env` again (the process-wide objects already built keep the settings they were
 * built with; reset them through resetProcessWide).
 */
export function reloadSettings(): Settings {
	void resetProcessWide(['settings']);
	return settings();
}
