/**
 * The seams of a FLUX job for tests and the benchmark only (`GenerateOptions.testHooks`): no production caller sets
 * them, so they sit in one object apart from the options production uses.
 */
import type { Dispatcher } from 'undici';
import type { LookupFunction } from './addresses';
import type { PollRateLimiter } from './pollRate';
import type { AdaptiveScheduleSettings, ReadyTimes } from './pollSchedule';
import type { PollPolicy, RetryPolicy, SleepFunction } from './retryPolicy';

/** What tests and the benchmark may replace in a job; each field left out keeps its default. */
export interface FluxTestHooks {
	/** Poll schedule (default DEFAULT_POLL_POLICY, adaptive); one given here is followed as given unless it sets `adaptive: true`. */
	poll?: Partial<PollPolicy>;
	/** The adaptive schedule's tuning (default DEFAULT_ADAPTIVE_SCHEDULE). */
	schedule?: Partial<AdaptiveScheduleSettings>;
	/** Where times-to-ready are learned (default: process-wide). */
	readyTimes?: ReadyTimes;
	/** The poll rate cap (default: the account's process-wide one, COMFLY_POLL_RATE; false: none). */
	pollLimiter?: PollRateLimiter | false;
	/** Clock for timings and deadline arithmetic (epoch ms; default Date.now). */
	now?: () => number;
	/** Submit retry policy (429 / 503). */
	submitRetry?: Partial<RetryPolicy>;
	/** Retries when the connection never opened (default 5 quick attempts, about 3.5 s). */
	connectRetry?: Partial<RetryPolicy>;
	/** Download retry policy (network, truncation, 408/429/5xx). */
	downloadRetry?: Partial<RetryPolicy>;
	/** Per-request headers and body-idle timeout (default 60 000 ms). */
	requestTimeoutMs?: number;
	/** Jitter source (default Math.random), for reproducible benchmarks. */
	random?: () => number;
	/** The sleep between attempts and polls (tests: one that advances a fake clock). */
	sleep?: SleepFunction;
	/** One undici dispatcher for every request instead of the shared agents (MockAgent). */
	dispatcher?: Dispatcher;
	/** DNS lookup for every connection (tests: a public-looking name that resolves to loopback). */
	lookup?: LookupFunction;
}
