/**
 * The process-wide state of polling, shared by every job (and every copy of the package: src/processWide.ts):
 * the times-to-ready learned per model (submit route), and one poll rate cap per account at the rate of
 * `COMFLY_POLL_RATE` (settings().pollRate).
 */
import { accountId } from '../account';
import { settings } from '../config';
import { processWide } from '../processWide';
import type { FluxCredentials } from './endpoints';
import { PollRateLimiters, type PollRateLimiter } from './pollRate';
import { ReadyTimes } from './pollSchedule';

function shared() {
	return processWide('pollShared', () => ({ readyTimes: new ReadyTimes(), limiters: new PollRateLimiters(settings().pollRate) }));
}

/** The times-to-ready learned in this process. */
export function sharedReadyTimes(): ReadyTimes {
	return shared().readyTimes;
}

/** The poll rate cap of the account (API style, base URL and key: accountId). */
export function sharedPollLimiter(credentials: FluxCredentials): PollRateLimiter {
	return shared().limiters.for(accountId(credentials));
}
