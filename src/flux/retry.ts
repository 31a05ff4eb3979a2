/**
 * The one retry helper, used by submit, poll and download. A step's attempt returns its result
 * or a {@link Transient} failure; anything final is thrown. The paid-job rule lives in the
 * submit step: it reports a Transient only when the task provably was not created.
 */
import type { FluxError, FluxErrorKind } from './errors';
import type { JobRuntime } from './job';
import { backoffDelay, type RetryPolicy } from './retryPolicy';

/** A failure worth another attempt. */
export interface Transient {
	transient: true;
	/** The error kind if this turns out to be the last attempt. */
	kind: FluxErrorKind;
	/** Short, for messages ("HTTP 503", "could not connect (ECONNREFUSED)"). */
	detail: string;
	statusCode?: number;
	code?: string;
	/** The server's Retry-After (ms), if it sent one: it replaces the backoff (capped by the policy). */
	retryAfterMs?: number;
	/** The connection never opened: retried under the (short) connect policy. */
	notConnected?: boolean;
}

export function transient(kind: FluxErrorKind, detail: string, extra: Partial<Transient> = {}): Transient {
	return { ...extra, transient: true, kind, detail };
}

export function isTransient(value: unknown): value is Transient {
	return typeof value === 'object' && value !== null && (value as Transient).transient === true;
}

/** Why the retries stopped. */
export type GiveUpReason = { why: 'attempts'; attempts: number } | { why: 'deadline'; delayMs: number };

export interface RetryLoop<T> {
	/** Attempts cap and backoff. */
	policy: RetryPolicy;
	/** Cap and backoff for failures whose connection never opened (default: `policy`). */
	connectPolicy?: RetryPolicy;
	/** One attempt (`n` counts from 1). */
	attempt: (n: number) => Promise<T | Transient>;
	/** A lower bound on the wait before attempt `n + 1` (polls: the poll schedule). */
	minDelayMs?: (n: number) => number;
	/** Backoff step of the first retry (default 0). */
	firstBackoffStep?: number;
	/** Give up at once when the wait would pass the job deadline (submits), instead of sleeping into the timeout. */
	stopAtDeadline?: boolean;
	/** Called after every transient failure (e.g. to remember it for a timeout message). */
	onTransient?: (failure: Transient) => void;
	/** The error to throw when giving up. */
	giveUp: (failure: Transient, reason: GiveUpReason) => FluxError;
}

/** Runs `loop.attempt` until it returns a result, throws, runs out of attempts or the job is aborted. */
export async function withRetries<T>(rt: JobRuntime, loop: RetryLoop<T>): Promise<T> {
	for (let n = 1; ; n++) {
		rt.throwIfAborted();
		const outcome = await loop.attempt(n);
		if (!isTransient(outcome)) return outcome;
		loop.onTransient?.(outcome);
		const policy = outcome.notConnected ? (loop.connectPolicy ?? loop.policy) : loop.policy;
		if (n >= policy.maxAttempts) throw loop.giveUp(outcome, { why: 'attempts', attempts: n });
		const backoff =
			outcome.retryAfterMs !== undefined
				? Math.min(outcome.retryAfterMs, policy.maxRetryAfterMs)
				: backoffDelay(policy, n - 1 + (loop.firstBackoffStep ?? 0), rt.settings.random);
		const delayMs = Math.max(backoff, loop.minDelayMs?.(n) ?? 0);
		if (loop.stopAtDeadline && delayMs >= rt.remainingMs()) throw loop.giveUp(outcome, { why: 'deadline', delayMs });
		await rt.sleep(delayMs);
	}
}
