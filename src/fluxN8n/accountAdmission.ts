/**
 * The FLUX glue of the account-wide limit (src/accountLimit): one process-wide limiter configured from
 * the environment (Redis from COMFLY_REDIS_URL or n8n's queue-mode settings; limits from
 * COMFLY_IMAGE_CONCURRENCY / COMFLY_VIDEO_CONCURRENCY), logging through the package logger, and the
 * per-job admission hook for `GenerateOptions.admission`. The video glue calls `accountAdmission`
 * with its own model and kind.
 */
import { accountKey, createAccountLimiter, type BuiltAccountLimiter } from '../accountLimit';
import type { FluxCredentials } from '../flux';
import type { SubmitAdmission } from '../flux/admission';
import { logInfo, logWarning } from '../n8n/log';
import { readPoolConfig } from '../pool/config';

const LIMITER = Symbol.for('n8n-nodes-flux-concurrent.accountLimiter');
type GlobalWithLimiter = typeof globalThis & { [LIMITER]?: BuiltAccountLimiter };

/** The process-wide limiter (shared by every copy of this module), built on first use from `process.env`. */
export function processAccountLimiter(): BuiltAccountLimiter {
	const holder = globalThis as GlobalWithLimiter;
	return (holder[LIMITER] ??= createAccountLimiter(process.env, { warn: logWarning, info: logInfo }));
}

/** Closes and forgets the process-wide limiter (tests; the next use builds a new one from `process.env`). */
export async function resetProcessAccountLimiter(): Promise<void> {
	const holder = globalThis as GlobalWithLimiter;
	const built = holder[LIMITER];
	holder[LIMITER] = undefined;
	await built?.close();
}

/** The account: the API key at this base URL (hashed inside accountKey; the key itself is never stored). */
function accountOf(credentials: FluxCredentials): string {
	return `${credentials.apiStyle}\0${credentials.baseUrl}\0${credentials.apiKey}`;
}

/** A new job's admission under its account's limit for `model` (`kind` picks COMFLY_IMAGE/VIDEO_CONCURRENCY). */
export function accountAdmission(credentials: FluxCredentials, model: string, kind: 'image' | 'video'): SubmitAdmission {
	const limit = readPoolConfig(process.env, () => undefined)[kind].workers;
	return processAccountLimiter().limiter.admission(accountKey(accountOf(credentials), model), limit);
}

/** The report's warnings of the account-wide limit (a Redis outage now or recently). */
export function accountLimitWarnings(): string[] {
	return processAccountLimiter().limiter.warnings();
}
