import { z } from 'zod';
import { isFluxError } from './errors';
import { JobRuntime, apiErrorMessage, drainBody, headerValue, readBodyText } from './runtime';
import { backoffDelay, classifyNetworkError, errorCode, parseRetryAfter } from './retryPolicy';

/** What a successful submit returns. */
export interface SubmittedTask {
	taskId: string;
	/** BFL only: where to poll (relay responses may echo one; it is ignored). */
	pollingUrl?: string;
	cost?: number;
}

/** Submit response (lenient: extra fields pass through). */
export const submitResponseSchema = z
	.object({
		id: z.string().min(1),
		polling_url: z.string().optional().nullable(),
		cost: z.number().optional().nullable(),
	})
	.passthrough();

/** Appended to every failure that may have created a paid task. */
export const MAYBE_SUBMITTED_NOTE =
	'the job may exist upstream and was not retried to avoid paying twice';

type Retry = { reason: 'rate_limited' | 'overloaded' | 'not_connected'; delayMs: number; detail: string; statusCode?: number };

/**
 * `POST …/flux-3-image` under the paid-job rule: retried only when the task
 * provably was not created (connection never opened, 429, 503); every
 * ambiguous failure becomes `maybe_submitted`.
 */
export async function submitTask(rt: JobRuntime, body: Record<string, unknown>): Promise<SubmittedTask> {
	rt.phase = 'submit';
	const policy = rt.options.submitRetry;
	const payload = JSON.stringify(body);
	const headers = { ...rt.endpoints.authHeaders, 'content-type': 'application/json', accept: 'application/json' };
	for (let attempt = 1; ; attempt++) {
		rt.throwIfAborted();
		const outcome = await submitOnce(rt, payload, headers, attempt);
		if ('taskId' in outcome) return outcome;
		// Retryable: the task was provably not created.
		const kind = outcome.reason === 'rate_limited' ? 'rate_limited' : outcome.reason === 'overloaded' ? 'upstream_error' : 'network';
		const notCreated = 'the task was not created';
		if (attempt >= policy.maxAttempts) {
			throw rt.error(kind, `FLUX submit failed after ${attempt} attempts: ${outcome.detail} (${notCreated})`, {
				statusCode: outcome.statusCode,
			});
		}
		if (outcome.delayMs >= rt.remainingMs()) {
			throw rt.error(
				kind,
				`FLUX submit failed: ${outcome.detail}; waiting ${Math.ceil(outcome.delayMs / 1000)} s more would pass the job timeout (${notCreated})`,
				{ statusCode: outcome.statusCode },
			);
		}
		await rt.sleep(outcome.delayMs);
	}

	async function submitOnce(
		rt: JobRuntime,
		payload: string,
		headers: Record<string, string>,
		attempt: number,
	): Promise<SubmittedTask | Retry> {
		const backoff = () => backoffDelay(policy, attempt - 1, rt.options.random);
		rt.countAttempt('submit');
		rt.submitInFlight = true;
		let res;
		try {
			res = await rt.http(rt.endpoints.submitUrl, { method: 'POST', headers, body: payload });
		} catch (err) {
			if (rt.signal.aborted) {
				// Whether the request reached the server is unknown unless the connection never opened.
				if (classifyNetworkError(err) !== 'ambiguous') rt.submitInFlight = false;
				throw rt.abortError();
			}
			const cls = classifyNetworkError(err);
			const code = errorCode(err) ?? 'unknown error';
			if (code === 'UND_ERR_INVALID_ARG') {
				// Rejected by the HTTP client before anything was sent.
				rt.submitInFlight = false;
				throw rt.error('bad_request', `The FLUX request could not be built (${describeNetworkError(err)}); the job was not submitted`, { code });
			}
			if (cls === 'not_connected') {
				rt.submitInFlight = false;
				return { reason: 'not_connected', delayMs: backoff(), detail: `could not connect to the FLUX API (${code})` };
			}
			if (cls === 'tls_certificate') {
				rt.submitInFlight = false;
				throw rt.error('network', `Could not connect to the FLUX API: TLS certificate rejected (${code}); the job was not submitted`, {
					code,
				});
			}
			rt.submitInFlight = false;
			throw rt.error('maybe_submitted', `FLUX submit failed after the request was sent (${describeNetworkError(err)}): ${MAYBE_SUBMITTED_NOTE}`, {
				code,
			});
		}

		const status = res.statusCode;
		if (status >= 200 && status < 300) {
			let text: string;
			try {
				text = await readBodyText(res.body, 1024 * 1024);
			} catch (err) {
				rt.submitInFlight = false;
				if (rt.signal.aborted) throw rt.abortError();
				throw rt.error('maybe_submitted', `FLUX submit answered ${status} but the response could not be read (${describeNetworkError(err)}): ${MAYBE_SUBMITTED_NOTE}`, {
					statusCode: status,
				});
			}
			rt.submitInFlight = false;
			let json: unknown;
			try {
				json = JSON.parse(text);
			} catch {
				throw rt.error('maybe_submitted', `FLUX submit answered ${status} with invalid JSON: ${MAYBE_SUBMITTED_NOTE}`, { statusCode: status });
			}
			const parsed = submitResponseSchema.safeParse(json);
			if (!parsed.success) {
				throw rt.error('maybe_submitted', `FLUX submit answered ${status} without a task id: ${MAYBE_SUBMITTED_NOTE}`, { statusCode: status });
			}
			const out: SubmittedTask = { taskId: parsed.data.id };
			if (typeof parsed.data.polling_url === 'string' && parsed.data.polling_url !== '') out.pollingUrl = parsed.data.polling_url;
			if (typeof parsed.data.cost === 'number') out.cost = parsed.data.cost;
			return out;
		}

		const text = await drainBody(res.body);
		rt.submitInFlight = false;
		if (rt.signal.aborted) throw rt.abortError();
		const apiMessage = apiErrorMessage(text);
		const said = apiMessage ? `: ${apiMessage}` : '';
		switch (true) {
			case status === 400 || status === 422:
				throw rt.error('bad_request', `FLUX API rejected the request (HTTP ${status})${said}`, { statusCode: status });
			case status === 401 || status === 403:
				throw rt.error('auth', `FLUX API refused the API key (HTTP ${status}): check the FLUX API credential${said}`, { statusCode: status });
			case status === 402:
				throw rt.error('credits', `FLUX API account is out of credits (HTTP 402): add credits and try again${said}`, { statusCode: status });
			case status === 429: {
				const after = parseRetryAfter(headerValue(res.headers, 'retry-after'), rt.now());
				const delayMs = after !== undefined ? Math.min(after, policy.maxRetryAfterMs) : backoff();
				return { reason: 'rate_limited', delayMs, detail: `rate limited (HTTP 429)${said}`, statusCode: status };
			}
			case status === 503: {
				const after = parseRetryAfter(headerValue(res.headers, 'retry-after'), rt.now());
				const delayMs = after !== undefined ? Math.min(after, policy.maxRetryAfterMs) : backoff();
				return { reason: 'overloaded', delayMs, detail: `FLUX API overloaded (HTTP 503)${said}`, statusCode: status };
			}
			case status >= 500:
				throw rt.error('maybe_submitted', `FLUX submit answered HTTP ${status}${said}: ${MAYBE_SUBMITTED_NOTE}`, { statusCode: status });
			case status === 404:
				throw rt.error('upstream_error', `FLUX submit endpoint not found (HTTP 404): check the Base URL and API style of the FLUX API credential${said}`, {
					statusCode: status,
				});
			default:
				throw rt.error('upstream_error', `FLUX submit answered HTTP ${status}${said}`, { statusCode: status });
		}
	}
}

/** A short, safe description of a low-level error (code and message, redacted later). */
export function describeNetworkError(err: unknown): string {
	if (isFluxError(err)) return err.message;
	const code = errorCode(err);
	const msg = err instanceof Error ? err.message : String(err);
	return code ? `${code}: ${msg}` : msg;
}
