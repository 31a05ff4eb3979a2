/**
 * What a 429 answer says about when to try again and how big the account's limit is: `Retry-After`
 * (seconds or an HTTP date) and the common `X-RateLimit-Limit` / `-Remaining` / `-Reset` headers.
 * Unparseable values are ignored (never a default pretending the server said something).
 */

/** Header values as HTTP clients hand them over (lower-case names). */
export type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

export interface RateLimitHint {
	/** Wait at least this long before submitting again (from Retry-After, else X-RateLimit-Reset). */
	retryAfterMs?: number;
	/** The account's limit, when the server states it (X-RateLimit-Limit). */
	limit?: number;
	/** What the server says is left (X-RateLimit-Remaining). */
	remaining?: number;
}

/** Cap on any wait read from a header: a bogus header never parks a job for hours. */
export const MAX_HINT_WAIT_MS = 60_000;

function first(headers: HeaderBag, name: string): string | undefined {
	const value = headers[name];
	const text = Array.isArray(value) ? value[0] : value;
	return typeof text === 'string' && text.trim() !== '' ? text.trim() : undefined;
}

function count(text: string | undefined): number | undefined {
	if (text === undefined || !/^\d+$/.test(text)) return undefined;
	return Number(text);
}

/** Seconds, or an HTTP date, to a wait in ms from `now` (capped); undefined when unparseable. */
function waitOf(text: string | undefined, now: number, epochSecondsAllowed: boolean): number | undefined {
	if (text === undefined) return undefined;
	if (/^\d+(\.\d+)?$/.test(text)) {
		const n = Number(text);
		// X-RateLimit-Reset is sometimes an epoch time in seconds rather than a delay.
		const ms = epochSecondsAllowed && n > 1e9 ? n * 1000 - now : n * 1000;
		return Math.min(MAX_HINT_WAIT_MS, Math.max(0, Math.round(ms)));
	}
	const at = Date.parse(text);
	return Number.isNaN(at) ? undefined : Math.min(MAX_HINT_WAIT_MS, Math.max(0, at - now));
}

/** Reads the rate-limit hints of a 429's headers. */
export function readRateLimitHint(headers: HeaderBag, now: number): RateLimitHint {
	const hint: RateLimitHint = {};
	const retryAfterMs = waitOf(first(headers, 'retry-after'), now, false) ?? waitOf(first(headers, 'x-ratelimit-reset'), now, true);
	if (retryAfterMs !== undefined) hint.retryAfterMs = retryAfterMs;
	const limit = count(first(headers, 'x-ratelimit-limit'));
	if (limit !== undefined && limit > 0) hint.limit = limit;
	const remaining = count(first(headers, 'x-ratelimit-remaining'));
	if (remaining !== undefined) hint.remaining = remaining;
	return hint;
}
