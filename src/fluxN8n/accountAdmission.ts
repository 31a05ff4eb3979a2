/**
 * The FLUX glue of the account-wide limit (src/accountLimit): one process-wide limiter on the process's shared
 * Redis (src/redis; none: per-process limits), limits from the settings (COMFLY_IMAGE_CONCURRENCY /
 * COMFLY_VIDEO_CONCURRENCY), logging through the package logger, and the per-job admission hook for
 * `GenerateOptions.admission`. The video glue calls `accountAdmission` with its own model and kind.
 */
import { accountId } from '../account';
import { createAccountLimiter, limitName, type AccountLimiter } from '../accountLimit';
import { settings } from '../config';
import type { FluxCredentials } from '../flux';
import type { SubmitAdmission } from '../flux/admission';
import { logWarning } from '../n8n/log';
import { processWide } from '../processWide';
import { processRedis } from '../redis';

/** The process-wide limiter (shared by every copy of the package: src/processWide.ts), built on first use. */
export function processAccountLimiter(): AccountLimiter {
	return processWide('accountLimiter', () => createAccountLimiter(processRedis(), { warn: logWarning }));
}

/** A new job's admission under its account's limit for `model` (`kind` picks COMFLY_IMAGE/VIDEO_CONCURRENCY). */
export function accountAdmission(credentials: FluxCredentials, model: string, kind: 'image' | 'video'): SubmitAdmission {
	const limit = settings().pool[kind].workers;
	return processAccountLimiter().admission(limitName(accountId(credentials), model), limit);
}
