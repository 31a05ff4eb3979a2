/**
 * The one table from an upstream HTTP status to what a step does with it: retry (transient,
 * and for a submit: provably no task was created) or fail with an error kind and message.
 * Success (2xx on submit/poll, 200 on download) and download redirects are handled by
 * the steps themselves before they look here.
 */
import type { Dispatcher } from 'undici';
import { apiErrorMessage, drainBody, headerValue } from './body';
import type { FluxErrorKind } from './errors';
import type { JobPhase as Step, JobRuntime } from './job';
import { transient, type Transient } from './retry';
import { parseRetryAfter } from './retryPolicy';

/** What a step does with a status: retry (with a short detail), or fail. */
export type StatusOutcome =
	| { retry: true; kind: FluxErrorKind; detail: string }
	| { retry: false; kind: FluxErrorKind; message: string };

/** Appended to every failure that may have created a paid task. */
export const MAYBE_SUBMITTED_NOTE = 'the job may exist upstream and was not retried to avoid paying twice';

/** The hint for a redirect answered where none is expected: usually http:// instead of https://. */
export const REDIRECT_HINT = 'a redirect: check http vs https (and the path) in the Base URL of the FLUX API credential';

type Text = (status: number, said: string) => string;
type Rule = readonly ['retry' | 'fail', FluxErrorKind, Text];

const CHECK_CREDENTIAL = 'check the FLUX API credential';

const is = (...statuses: number[]) => (s: number) => statuses.includes(s);
const redirect = (s: number) => s >= 300 && s < 400;
const serverError = (s: number) => s >= 500;
const any = () => true;

/** Rows are tried in order; a missing cell falls through to the next matching row. */
const TABLE: ReadonlyArray<readonly [(status: number) => boolean, Partial<Record<Step, Rule>>]> = [
	[is(400, 422), {
		submit: ['fail', 'bad_request', (s, said) => `FLUX API rejected the request (HTTP ${s})${said}`],
		poll: ['fail', 'bad_request', (s, said) => `FLUX API rejected the status request (HTTP ${s})${said}`],
	}],
	[is(401, 403), {
		submit: ['fail', 'auth', (s, said) => `FLUX API refused the API key (HTTP ${s}): ${CHECK_CREDENTIAL}${said}`],
		poll: ['fail', 'auth', (s, said) => `FLUX API refused the API key while polling (HTTP ${s}): ${CHECK_CREDENTIAL}${said}`],
	}],
	[is(402), {
		submit: ['fail', 'credits', (_s, said) => `FLUX API account is out of credits (HTTP 402): add credits and try again${said}`],
		poll: ['fail', 'credits', (_s, said) => `FLUX API account is out of credits (HTTP 402)${said}`],
	}],
	[is(404), {
		submit: ['fail', 'upstream_error', (_s, said) =>
			`FLUX submit endpoint not found (HTTP 404): check the Base URL and API style of the FLUX API credential${said}`],
		poll: ['fail', 'task_not_found', (_s, said) => `FLUX task is unknown or expired (HTTP 404)${said}`],
	}],
	[is(403, 410), {
		download: ['fail', 'download_failed', (s) => `The image download answered HTTP ${s} (the signed image URL may have expired)`],
	}],
	[is(429), {
		submit: ['retry', 'rate_limited', (_s, said) => `rate limited (HTTP 429)${said}`],
	}],
	[is(503), {
		submit: ['retry', 'upstream_error', (_s, said) => `FLUX API overloaded (HTTP 503)${said}`],
	}],
	[serverError, {
		submit: ['fail', 'maybe_submitted', (s, said) => `FLUX submit answered HTTP ${s}${said}: ${MAYBE_SUBMITTED_NOTE}`],
	}],
	[(s) => s === 408 || s === 429 || serverError(s), {
		poll: ['retry', 'upstream_error', (s) => `HTTP ${s}`],
		download: ['retry', 'download_failed', (s) => `HTTP ${s}`],
	}],
	[redirect, {
		submit: ['fail', 'upstream_error', (s, said) => `FLUX submit answered HTTP ${s}, ${REDIRECT_HINT}${said}`],
		poll: ['fail', 'upstream_error', (s, said) => `FLUX status request answered HTTP ${s}, ${REDIRECT_HINT}${said}`],
	}],
	[any, {
		submit: ['fail', 'upstream_error', (s, said) => `FLUX submit answered HTTP ${s}${said}`],
		poll: ['fail', 'upstream_error', (s, said) => `FLUX status request answered HTTP ${s}${said}`],
		download: ['fail', 'download_failed', (s) => `The image download answered HTTP ${s}`],
	}],
];

/** The outcome of an unsuccessful `status` for `step`; `apiMessage` is the error body's message, if any. */
export function statusOutcome(step: Step, status: number, apiMessage = ''): StatusOutcome {
	const said = apiMessage ? `: ${apiMessage}` : '';
	for (const [matches, cells] of TABLE) {
		const rule = matches(status) ? cells[step] : undefined;
		if (!rule) continue;
		const [action, kind, text] = rule;
		return action === 'retry' ? { retry: true, kind, detail: text(status, said) } : { retry: false, kind, message: text(status, said) };
	}
	throw new Error(`unreachable: no status rule for ${step} ${status}`);
}

/** A non-success answer of `step`, its body drained: the table's retry as a {@link Transient}, or its failure thrown. */
export async function failedStatus(rt: JobRuntime, step: Step, res: Dispatcher.ResponseData): Promise<Transient> {
	const status = res.statusCode;
	const text = await drainBody(res.body);
	rt.throwIfAborted();
	const outcome = statusOutcome(step, status, apiErrorMessage(text, rt.settings.fieldLabel));
	if (!outcome.retry) throw rt.error(outcome.kind, outcome.message, { statusCode: status });
	return transient(outcome.kind, outcome.detail, { statusCode: status, retryAfterMs: parseRetryAfter(headerValue(res.headers, 'retry-after'), rt.now()) });
}
