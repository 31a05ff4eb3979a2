/**
 * The process-wide state of polling, shared by every job (and every copy of this module loaded in the
 * process): the times-to-ready learned per model (submit route), and one poll rate cap per account at the rate
 * of `COMFLY_POLL_RATE` (read once; a bad value is reported through Node's process warnings).
 */
import { accountKey, PollRateLimiters, readPollRate, type PollRateLimiter } from './pollRate';
import { ReadyTimes } from './pollSchedule';

interface PollShared {
	readyTimes: ReadyTimes;
	limiters: PollRateLimiters;
}

const KEY = Symbol.for('n8n-nodes-flux-concurrent.pollShared');

function shared(): PollShared {
	const store = globalThis as unknown as Record<symbol, PollShared | undefined>;
	return (store[KEY] ??= {
		readyTimes: new ReadyTimes(),
		limiters: new PollRateLimiters(readPollRate(process.env, (message) => process.emitWarning(message))),
	});
}

/** The times-to-ready learned in this process. */
export function sharedReadyTimes(): ReadyTimes {
	return shared().readyTimes;
}

/** The poll rate cap of the account `apiKey` at `origin`. */
export function sharedPollLimiter(origin: string, apiKey: string): PollRateLimiter {
	return shared().limiters.for(accountKey(origin, apiKey));
}
