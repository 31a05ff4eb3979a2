/** `COMFLY_POLL_RATE`: status polls per second per account (pure: no globals). */
import { z } from 'zod';

import { LOG_PREFIX, type Env, type Warn } from './env';

/** Default: 25 polls per second per account (see bench/README.md: what 30 workers of 2 s jobs need). */
export const DEFAULT_POLL_RATE = 25;
export const MAX_POLL_RATE = 1000;

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
