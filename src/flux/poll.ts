import { z } from 'zod';
import { checkPollingUrl, defaultPollUrl } from './endpoints';
import { FluxErrorKind } from './errors';
import { JobRuntime, apiErrorMessage, drainBody, headerValue, readBodyText } from './runtime';
import { backoffDelay, errorCode, nextPollDelay, parseRetryAfter } from './retryPolicy';
import { SubmittedTask, describeNetworkError } from './submit';

/** Poll response (lenient: extra fields pass through, `result` checked only when Ready). */
export const pollResponseSchema = z
	.object({
		id: z.string().optional().nullable(),
		status: z.string().min(1),
		result: z.unknown().optional(),
		progress: z.unknown().optional(),
	})
	.passthrough();

/** `result` of a Ready task. */
export const readyResultSchema = z.object({ sample: z.string().min(1) }).passthrough();

/** Final statuses other than Ready, and the error kind each maps to. */
export const FINAL_STATUS_KINDS: Readonly<Record<string, FluxErrorKind>> = Object.freeze({
	'request moderated': 'request_moderated',
	'content moderated': 'content_moderated',
	error: 'generation_error',
	failed: 'generation_error',
	'task not found': 'task_not_found',
});

const FINAL_STATUS_MESSAGES: Readonly<Record<FluxErrorKind, string>> = {
	request_moderated: 'the request was refused by moderation (Request Moderated); change the prompt or reference images',
	content_moderated: 'the generated image was refused by moderation (Content Moderated)',
	generation_error: 'generation failed upstream',
	task_not_found: 'the task is unknown or expired (Task not found)',
} as Record<FluxErrorKind, string>;

/** The outcome of one poll: keep going, or the task is Ready with this sample URL. */
export type PollOutcome =
	| { state: 'pending'; status: string; progress?: number }
	| { state: 'ready'; sampleUrl: string }
	| { state: 'transient'; detail: string; retryAfterMs?: number };

/** Interprets a poll response body (already parsed JSON). Throws the FluxError of a final failure. */
export function interpretPollResponse(rt: JobRuntime, json: unknown): PollOutcome {
	const parsed = pollResponseSchema.safeParse(json);
	if (!parsed.success) {
		throw rt.error('invalid_response', 'FLUX API returned an unexpected status response (no "status" field)');
	}
	const status = parsed.data.status.trim();
	const key = status.toLowerCase();
	if (key === 'ready') {
		const result = readyResultSchema.safeParse(parsed.data.result);
		if (!result.success) {
			throw rt.error('invalid_response', 'FLUX API reported the task Ready but gave no image URL (result.sample)');
		}
		return { state: 'ready', sampleUrl: result.data.sample };
	}
	const kind = FINAL_STATUS_KINDS[key];
	if (kind) {
		const detail = kind === 'generation_error' ? detailOf(parsed.data) : '';
		throw rt.error(kind, `FLUX task ${FINAL_STATUS_MESSAGES[kind]}${detail}`);
	}
	const progress = typeof parsed.data.progress === 'number' ? parsed.data.progress : undefined;
	return progress === undefined ? { state: 'pending', status } : { state: 'pending', status, progress };
}

function detailOf(data: Record<string, unknown>): string {
	const candidate = data.details ?? data.error ?? data.message ?? data.result;
	if (candidate === undefined || candidate === null) return '';
	const msg = apiErrorMessage(JSON.stringify({ detail: candidate }));
	return msg ? `: ${msg}` : '';
}

/**
 * Polls the task until Ready (returns the sample URL), a final failure, or
 * the job timeout. Delays follow the poll policy (exponential backoff with
 * jitter); transient failures (network, 408, 429 with Retry-After, 5xx) are
 * retried within the job timeout. BFL polling URLs are checked against the
 * base host's registrable domain before any request is sent.
 */
export async function pollUntilReady(rt: JobRuntime, task: SubmittedTask): Promise<{ sampleUrl: string; polls: number }> {
	rt.phase = 'poll';
	rt.taskId = task.taskId;
	const policy = rt.options.poll;
	const url =
		rt.endpoints.style === 'bfl' && task.pollingUrl
			? checkPollingUrl(rt.endpoints, task.pollingUrl, task.taskId).toString()
			: defaultPollUrl(rt.endpoints, task.taskId);
	const headers = { ...rt.endpoints.authHeaders, accept: 'application/json' };
	const submittedAt = rt.now();
	let delay = policy.firstPollDelayMs ?? nextPollDelay(policy, 0, 0, rt.options.random);
	let failures = 0;
	for (let polls = 1; ; polls++) {
		await rt.sleep(delay);
		const outcome = await pollOnce(rt, url, headers);
		if (outcome.state === 'ready') return { sampleUrl: outcome.sampleUrl, polls };
		rt.lastStatus = outcome.state === 'pending' ? outcome.status : `transient failure, ${outcome.detail}`;
		delay = nextPollDelay(policy, polls, rt.now() - submittedAt, rt.options.random);
		if (outcome.state === 'transient') {
			// Errors back off exponentially (and honour Retry-After), whatever the poll schedule.
			failures++;
			delay = Math.max(delay, backoffDelay(policy, failures, rt.options.random));
			if (outcome.retryAfterMs !== undefined) delay = Math.max(delay, Math.min(outcome.retryAfterMs, policy.maxRetryAfterMs));
		} else {
			failures = 0;
		}
	}
}

async function pollOnce(rt: JobRuntime, url: string, headers: Record<string, string>): Promise<PollOutcome> {
	rt.countAttempt('poll');
	let res;
	try {
		res = await rt.http(url, { method: 'GET', headers });
	} catch (err) {
		if (rt.signal.aborted) throw rt.abortError();
		return { state: 'transient', detail: describeNetworkError(err) };
	}
	const status = res.statusCode;
	if (status === 200) {
		let text: string;
		try {
			text = await readBodyText(res.body, 1024 * 1024);
		} catch (err) {
			if (rt.signal.aborted) throw rt.abortError();
			return { state: 'transient', detail: `reading the status response failed (${errorCode(err) ?? 'error'})` };
		}
		let json: unknown;
		try {
			json = JSON.parse(text);
		} catch {
			throw rt.error('invalid_response', 'FLUX API returned a status response that is not valid JSON', { statusCode: status });
		}
		return interpretPollResponse(rt, json);
	}
	const text = await drainBody(res.body);
	if (rt.signal.aborted) throw rt.abortError();
	const apiMessage = apiErrorMessage(text);
	const said = apiMessage ? `: ${apiMessage}` : '';
	if (status === 404) throw rt.error('task_not_found', `FLUX task is unknown or expired (HTTP 404)${said}`, { statusCode: status });
	if (status === 400 || status === 422) throw rt.error('bad_request', `FLUX API rejected the status request (HTTP ${status})${said}`, { statusCode: status });
	if (status === 401 || status === 403) {
		throw rt.error('auth', `FLUX API refused the API key while polling (HTTP ${status}): check the FLUX API credential${said}`, { statusCode: status });
	}
	if (status === 402) throw rt.error('credits', `FLUX API account is out of credits (HTTP 402)${said}`, { statusCode: status });
	if (status === 408 || status === 429 || status >= 500) {
		const retryAfterMs = parseRetryAfter(headerValue(res.headers, 'retry-after'), rt.now());
		return retryAfterMs === undefined
			? { state: 'transient', detail: `HTTP ${status}` }
			: { state: 'transient', detail: `HTTP ${status}`, retryAfterMs };
	}
	throw rt.error('upstream_error', `FLUX status request answered HTTP ${status}${said}`, { statusCode: status });
}
