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
import { flux3Video, imageModels } from '../models';

/** The process-wide limiter (shared by every copy of the package: src/processWide.ts), built on first use. */
export function processAccountLimiter(): AccountLimiter {
	return processWide('accountLimiter', () => createAccountLimiter(processRedis(), { warn: logWarning }));
}

/**
 * A new job's admission under its account's limit for `model`: the pool's workers (`kind` picks
 * COMFLY_IMAGE/VIDEO_CONCURRENCY); in the BFL style at most the model's account limit, so a first wave stays
 * within what BFL accepts (24 for image models, 5 for FLUX 3 Video) instead of learning it from 429s. A relay
 * sets its own limits: there the adaptive limit starts at the workers.
 */
export function accountAdmission(credentials: FluxCredentials, model: string, kind: 'image' | 'video'): SubmitAdmission {
	const workers = settings().pool[kind].workers;
	// BFL's own limit of active tasks per account on the model's endpoint (its descriptor; src/models), if known.
	const modelLimit = [flux3Video, ...imageModels()].find((m) => m.id === model)?.accountLimit ?? Number.POSITIVE_INFINITY;
	const limit = credentials.apiStyle === 'bfl' ? Math.min(workers, modelLimit) : workers;
	return processAccountLimiter().admission(limitName(accountId(credentials), model), limit);
}
