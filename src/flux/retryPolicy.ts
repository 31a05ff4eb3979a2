/**
 * Retry and backoff policies, Retry-After parsing, the sleep's type and the
 * classification of network errors that decides the paid-job rule.
 */

/** Exponential backoff: delay(n) = min(maxDelayMs, initialDelayMs * factor^n), minus up to `jitter` of it at random. */
export interface BackoffPolicy {
	initialDelayMs: number;
	factor: number;
	maxDelayMs: number;
	/** 0 = none, 1 = "full jitter"; the delay is reduced by `jitter * random()` of itself. */
	jitter: number;
}

/**
 * Polling policy (status polls). With `elapsedFraction`, the wait before each poll is that
 * fraction of the time since submit, clamped to [initialDelayMs, maxDelayMs]: a finished task
 * is noticed within that fraction of its run time, whatever its length. Without it, polls
 * follow the exponential backoff. Transient poll errors back off exponentially, never sooner
 * than the poll schedule; a Retry-After, when sent, replaces the backoff (capped).
 */
export interface PollPolicy extends BackoffPolicy {
	/** Delay before the first poll; defaults to `initialDelayMs`. */
	firstPollDelayMs?: number;
	/** Poll again after this fraction of the time since submit (e.g. 0.05); 0 or absent: backoff. */
	elapsedFraction?: number;
	/** Cap on a server-requested Retry-After while polling. */
	maxRetryAfterMs: number;
	/**
	 * Use the latency-aware schedule (src/flux/pollSchedule.ts: progress, learned times-to-ready),
	 * falling back to the rule above when it knows nothing. Only the default policy sets it: a policy
	 * passed in `GenerateOptions.testHooks.poll` is followed as given unless it sets `adaptive: true` itself.
	 */
	adaptive?: boolean;
}

/** Retry policy for submits (only when no task was created), connects that never opened, and downloads. */
export interface RetryPolicy extends BackoffPolicy {
	/** Total attempts including the first. */
	maxAttempts: number;
	/** Cap on a server-requested Retry-After (seconds or HTTP date). */
	maxRetryAfterMs: number;
}

/**
 * Polling: adaptive (the API's progress and the times-to-ready learned in this process, see
 * src/flux/pollSchedule.ts); when it knows nothing yet, every 5 % of the time since submit, at least
 * 250 ms and at most 2 s apart (20 % jitter). The benchmark (npm run bench) compares it with fixed
 * and backoff schedules and with other ways of polling.
 */
export const DEFAULT_POLL_POLICY: Readonly<PollPolicy> = Object.freeze({
	initialDelayMs: 250,
	factor: 1.5,
	maxDelayMs: 2_000,
	jitter: 0.2,
	elapsedFraction: 0.05,
	maxRetryAfterMs: 30_000,
	adaptive: true,
});

/** Submit retries (429, 503): 12 attempts, 1 s ×2 up to 30 s, Retry-After capped at 60 s. */
export const DEFAULT_SUBMIT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
	maxAttempts: 12,
	initialDelayMs: 1_000,
	factor: 2,
	maxDelayMs: 30_000,
	jitter: 0.2,
	maxRetryAfterMs: 60_000,
});

/**
 * Retries of a request whose connection never opened (refused, DNS, connect timeout): a handful
 * of quick attempts (250 ms ×2 up to 1 s, about 3.5 s in all), so a wrong or dead Base URL fails
 * in seconds, not minutes. Nothing was sent, so retrying a submit here cannot pay twice.
 */
export const DEFAULT_CONNECT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
	maxAttempts: 5,
	initialDelayMs: 250,
	factor: 2,
	maxDelayMs: 1_000,
	jitter: 0.2,
	maxRetryAfterMs: 0,
});

/** Download retries (network, truncation, 408/429/5xx): 5 attempts, 500 ms ×2 up to 8 s. */
export const DEFAULT_DOWNLOAD_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
	maxAttempts: 5,
	initialDelayMs: 500,
	factor: 2,
	maxDelayMs: 8_000,
	jitter: 0.2,
	maxRetryAfterMs: 30_000,
});

function finite(n: unknown, fallback: number, min = 0): number {
	return typeof n === 'number' && Number.isFinite(n) && n >= min ? n : fallback;
}

/** Fills a partial policy from defaults and sanitises values (negative/NaN → default). */
export function resolvePolicy<P extends BackoffPolicy>(defaults: Readonly<P>, partial?: Partial<P>): P {
	const out = { ...defaults } as P;
	for (const [key, value] of Object.entries(partial ?? {})) {
		if (value === undefined) continue;
		const def = (defaults as Record<string, unknown>)[key];
		(out as Record<string, unknown>)[key] =
			typeof def === 'number' || def === undefined ? finite(value, (def as number) ?? 0) : value;
	}
	out.factor = Math.max(1, out.factor);
	out.jitter = Math.min(1, Math.max(0, out.jitter));
	out.maxDelayMs = Math.max(out.maxDelayMs, 0);
	if ('maxAttempts' in out) {
		const o = out as unknown as RetryPolicy;
		o.maxAttempts = Math.max(1, Math.floor(o.maxAttempts));
	}
	return out;
}

/** The one jitter formula: `base` reduced by up to `jitter` of itself, at random. */
export function withJitter(base: number, jitter: number, random: () => number = Math.random): number {
	const r = Math.min(1, Math.max(0, random()));
	return Math.max(0, Math.round(base * (1 - jitter * r)));
}

/** Delay before retry/poll number `n` (0-based) under `policy`. */
export function backoffDelay(policy: BackoffPolicy, n: number, random: () => number = Math.random): number {
	const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * Math.pow(policy.factor, Math.max(0, n)));
	return withJitter(base, policy.jitter, random);
}

/** The wait before the next status poll, `elapsedMs` after submit, after `step` polls. */
export function nextPollDelay(
	policy: PollPolicy,
	step: number,
	elapsedMs: number,
	random: () => number = Math.random,
): number {
	if (!policy.elapsedFraction) return backoffDelay(policy, step, random);
	const base = Math.min(policy.maxDelayMs, Math.max(policy.initialDelayMs, elapsedMs * policy.elapsedFraction));
	return withJitter(base, policy.jitter, random);
}

/**
 * Parses a `Retry-After` header (delta seconds or HTTP date) into
 * milliseconds from `now`; `undefined` when absent or unparseable.
 */
export function parseRetryAfter(value: string | string[] | undefined | null, now: number = Date.now()): number | undefined {
	const raw = Array.isArray(value) ? value[0] : value;
	if (raw === undefined || raw === null) return undefined;
	const s = String(raw).trim();
	if (s === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(s)) return Math.round(Number(s) * 1000);
	if (/^-\d/.test(s)) return 0;
	const date = Date.parse(s);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

/** An abortable sleep (injectable: tests pass one that advances a fake clock). */
export type SleepFunction = (ms: number, signal: AbortSignal) => Promise<void>;

/** Error codes that prove the connection never opened, so the request never reached the server. */
const CONNECT_PHASE_CODES = new Set([
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EAI_NONAME',
	'EAI_NODATA',
	'EAI_FAIL',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'EHOSTDOWN',
	'ENETDOWN',
	'EADDRNOTAVAIL',
	'UND_ERR_CONNECT_TIMEOUT',
]);

/** TLS certificate verification failures: the request was never sent, but retrying cannot help. */
const TLS_CERT_CODES = new Set([
	'CERT_HAS_EXPIRED',
	'CERT_NOT_YET_VALID',
	'CERT_REVOKED',
	'DEPTH_ZERO_SELF_SIGNED_CERT',
	'SELF_SIGNED_CERT_IN_CHAIN',
	'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
	'UNABLE_TO_GET_ISSUER_CERT',
	'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
	'ERR_TLS_CERT_ALTNAME_INVALID',
	'HOSTNAME_MISMATCH',
]);

export type NetworkErrorClass =
	/** The connection never opened (refused, DNS, connect timeout, TLS handshake): nothing was sent. */
	| 'not_connected'
	/** TLS certificate rejected: nothing was sent, and a retry would fail the same way. */
	| 'tls_certificate'
	/** Anything else (reset, socket closed, headers/body timeout…): the request may have been received. */
	| 'ambiguous';

/** Finds the most specific error code on an error, its `cause` chain and `AggregateError` members. */
export function errorCode(err: unknown): string | undefined {
	const seen = new Set<unknown>();
	let current: unknown = err;
	while (current && typeof current === 'object' && !seen.has(current)) {
		seen.add(current);
		const code = (current as { code?: unknown }).code;
		if (typeof code === 'string' && code !== '') return code;
		if (current instanceof AggregateError && current.errors.length > 0) {
			const codes = current.errors.map(errorCode);
			if (codes.every((c) => c !== undefined && c === codes[0])) return codes[0];
			return codes.find((c) => c !== undefined);
		}
		current = (current as { cause?: unknown }).cause;
	}
	return undefined;
}

/**
 * Classifies a request error for the paid-job rule. Only `not_connected`
 * proves that no task was created upstream.
 */
export function classifyNetworkError(err: unknown): NetworkErrorClass {
	if (err instanceof AggregateError && err.errors.length > 0) {
		const classes = err.errors.map(classifyNetworkError);
		if (classes.every((c) => c === 'not_connected')) return 'not_connected';
		if (classes.every((c) => c !== 'ambiguous')) return 'tls_certificate';
		return 'ambiguous';
	}
	const code = errorCode(err);
	if (code === undefined) return 'ambiguous';
	if (CONNECT_PHASE_CODES.has(code)) return 'not_connected';
	if (TLS_CERT_CODES.has(code)) return 'tls_certificate';
	if (/^ERR_(SSL|TLS)_/.test(code) && /HANDSHAKE|PROTOCOL_VERSION|WRONG_VERSION|UNSUPPORTED_PROTOCOL|NO_PROTOCOLS/.test(code)) {
		// Handshake failures happen before any request byte is written.
		return 'not_connected';
	}
	return 'ambiguous';
}

/** A short, safe description of a low-level error (code and message; redacted where it is shown). */
export function describeNetworkError(err: unknown): string {
	const code = errorCode(err);
	const msg = err instanceof Error ? err.message : String(err);
	return code ? `${code}: ${msg}` : msg;
}
