import { z } from 'zod';
import { apiErrorMessage, parseJson, readBodyText } from './body';
import { checkPollingUrl, defaultPollUrl, type FluxEndpoints } from './endpoints';
import type { FluxErrorKind } from './errors';
import type { JobRuntime } from './job';
import { transient, withRetries, type Transient } from './retry';
import { nextAdaptiveWait, progressEta, progressFraction, TaskTrack } from './pollSchedule';
import { describeNetworkError, nextPollDelay, type RetryPolicy } from './retryPolicy';
import { failedStatus } from './statusTable';
import type { FluxTask } from './submit';

/** Poll response (lenient: extra fields pass through, `result` checked only when Ready). */
export const pollResponseSchema = z
	.object({
		id: z.string().optional().nullable(),
		status: z.string().min(1),
		result: z.unknown().optional(),
		progress: z.unknown().optional(),
		/** A model may report its cost (credits) on the finished poll; lenient: anything else is ignored. */
		cost: z.unknown().optional(),
	})
	.passthrough();

const url = z.string().min(1);
/** One URL, else undefined: a malformed list or key is ignored (the singular key or the other list may still hold it). */
const lenient = <T extends z.ZodTypeAny>(schema: T) => schema.optional().catch(undefined);

/**
 * `result` of a Ready task: its sample (the image or clip) and a draft's cache, each under its singular key or as the
 * first of newer answers' lists (`samples`, `draft_caches`); lenient: other fields pass, malformed ones are ignored.
 */
export const readyResultSchema = z
	.object({ sample: lenient(url), samples: lenient(z.array(url).min(1)), draft_cache: lenient(url), draft_caches: lenient(z.array(url).min(1)) })
	.passthrough()
	.transform((r) => {
		const draftCacheUrl = r.draft_cache ?? r.draft_caches?.[0];
		return { sampleUrl: r.sample ?? r.samples?.[0], ...(draftCacheUrl === undefined ? {} : { draftCacheUrl }) };
	})
	.refine((r): r is ReadyResult => r.sampleUrl !== undefined);

/** What a Ready task gives to download: its sample, and a draft's cache (a `draft: true` request). */
export interface ReadyResult {
	sampleUrl: string;
	draftCacheUrl?: string;
}

/** Final statuses other than Ready: the error kind and message of each. */
const FINAL_STATUSES: Readonly<Record<string, readonly [FluxErrorKind, string]>> = {
	'request moderated': ['request_moderated', 'FLUX refused the request in moderation (Request Moderated): change the prompt or reference images'],
	'content moderated': ['content_moderated', 'FLUX refused the generated image in moderation (Content Moderated)'],
	error: ['generation_error', 'FLUX generation failed upstream (status Error)'],
	failed: ['generation_error', 'FLUX generation failed upstream (status Failed)'],
	'task not found': ['task_not_found', 'FLUX does not know the task, or it expired (Task not found)'],
};

/** The outcome of one poll: keep going, or the task is Ready with these URLs. */
export type PollOutcome = { state: 'pending'; status: string; progress?: number } | { state: 'ready'; ready: ReadyResult };

/** Where to poll a task: BFL's `polling_url` once checked against the base host, else the style's own route. */
export function pollUrlFor(endpoints: FluxEndpoints, task: FluxTask): string {
	return endpoints.style === 'bfl' && task.pollingUrl
		? checkPollingUrl(endpoints, task.pollingUrl, task.taskId).toString()
		: defaultPollUrl(endpoints, task.taskId);
}

/**
 * The key under which times-to-ready are learned: the model's submit route (origin and path). Not the status
 * route: images and videos share `get_result`, and a clip takes far longer than an image.
 */
export function readyTimesKey(submitUrl: string): string {
	const url = new URL(submitUrl);
	return `${url.origin}${url.pathname}`;
}

/**
 * Polls the task until Ready (returns its sample and draft cache URLs), a final failure, or the job timeout.
 * The wait before each poll follows the poll policy: adaptive (src/flux/pollSchedule.ts: the API's
 * progress, the times-to-ready seen for this model, else the elapsed-fraction rule) or, for a policy
 * without `adaptive`, a fraction of the time since polling began (clamped, with jitter). Every poll
 * first takes a slot of the account's poll rate cap. Transient failures (network, 408, 429, 5xx, a
 * 200 that is not a status answer) are retried through the retry helper, backing off within the job
 * timeout. With `learn` (polling began at submit) and an adaptive policy, the time to Ready is learned.
 */
export async function pollUntilReady(rt: JobRuntime, task: FluxTask, learn = false): Promise<{ ready: ReadyResult; polls: number }> {
	rt.phase = 'poll';
	rt.taskId = task.taskId;
	const { poll: policy, readyTimes, schedule: settings, random, pollLimiter: limiter } = rt.settings;
	limiter?.enter();
	try {
		const url = pollUrlFor(rt.endpoints, task);
		const key = readyTimesKey(rt.endpoints.submitUrl);
		const startedAt = rt.now();
		const track = new TaskTrack(learn ? taskOrigin(rt) : undefined);
		let polls = 0;
		let sentAt = startedAt;
		const fallback = () => (track.polls === 0 ? (policy.firstPollDelayMs ?? nextPollDelay(policy, 0, 0, random)) : nextPollDelay(policy, polls, rt.now() - startedAt, random));
		const account = () => limiter && { rate: limiter.rate, pollers: limiter.load().pollers };
		const schedule = () =>
			policy.adaptive
				? nextAdaptiveWait({ elapsedMs: rt.now() - startedAt, track, learned: readyTimes.window(key, settings.minSamples), account: account(), settings, random, fallbackMs: fallback })
				: fallback();
		const retries: RetryPolicy = { ...policy, maxAttempts: Number.POSITIVE_INFINITY };
		for (let delay = schedule(); ; delay = schedule()) {
			await rt.sleep(delay);
			const outcome = await withRetries(rt, {
				policy: retries,
				firstBackoffStep: 1,
				attempt: async () => (await takePollSlot(rt), polls++, (sentAt = rt.now()), await pollOnce(rt, url)),
				minDelayMs: schedule,
				onTransient: (failure) => (rt.lastStatus = `transient failure, ${failure.detail}`),
				giveUp: (failure) => rt.error(failure.kind, `FLUX status polling failed: ${failure.detail}`),
			});
			// The answer tells the task's state when the poll was sent (not when a busy event loop got round to reading it).
			const atMs = sentAt - startedAt;
			if (outcome.state === 'ready') {
				rt.lifecycle.tell('onReady'); // the download is not upstream-active
				if (learn && policy.adaptive) readyTimes.add(key, track.polls === 0 ? readyTimes.censored(key, atMs, random) : readyTimeOf(track, atMs));
				return { ready: outcome.ready, polls };
			}
			rt.lastStatus = outcome.status;
			track.see({ atMs, status: outcome.status, progress: outcome.progress });
		}
	} finally {
		limiter?.leave();
	}
}

/** When the task was created, relative to the start of polling: during the submit's round trip, so half of it before, give or take half. */
function taskOrigin(rt: JobRuntime): { atMs: number; errorMs: number } | undefined {
	const trip = rt.submitRoundTripMs;
	return trip === undefined ? undefined : { atMs: -trip / 2, errorMs: trip / 2 };
}

/**
 * When the task became Ready, as far as its polls tell (ms since polling began): between the last pending poll and
 * the one that saw Ready; the progress's expected finish when it falls there, the Ready poll when the expected finish
 * comes after it by no more than its error (a poll aimed at the expected finish may be sent a rounding or a timer's
 * early firing before it), else the midpoint. (A task seen Ready at its first poll: {@link ReadyTimes.censored}.)
 */
export function readyTimeOf(track: TaskTrack, seenAtMs: number): number {
	const eta = progressEta(track);
	if (eta !== undefined && eta.atMs >= track.lastPollMs && eta.atMs <= seenAtMs + eta.errorMs) return Math.min(seenAtMs, eta.atMs);
	return (track.lastPollMs + seenAtMs) / 2;
}

/** Waits for a slot under the account's poll rate cap (none when the job has no limiter). */
async function takePollSlot(rt: JobRuntime): Promise<void> {
	await rt.unlessAborted(async () => await rt.settings.pollLimiter?.take(() => rt.now(), (ms) => rt.sleep(ms), rt.signal));
}

/** One status request: Ready / pending, a {@link Transient} failure, or throws a final one. */
export async function pollOnce(rt: JobRuntime, url: string): Promise<PollOutcome | Transient> {
	let res;
	try {
		res = await rt.send('poll', url, { method: 'GET', headers: { ...rt.endpoints.authHeaders, accept: 'application/json' } });
	} catch (err) {
		rt.throwIfAborted();
		return transient('network', describeNetworkError(err));
	}
	return res.statusCode === 200 ? readStatusAnswer(rt, res.body) : failedStatus(rt, 'poll', res);
}

/** A 200 poll answer. One that cannot be read, is not JSON (a proxy's page) or has no status is transient: polls are idempotent. */
async function readStatusAnswer(rt: JobRuntime, body: Parameters<typeof readBodyText>[0]): Promise<PollOutcome | Transient> {
	let text: string;
	try {
		text = await readBodyText(body);
	} catch (err) {
		rt.throwIfAborted();
		return transient('invalid_response', `reading the status answer failed (${describeNetworkError(err)})`);
	}
	const json = parseJson(text);
	if (json === undefined) return transient('invalid_response', 'the status answer was not JSON (a proxy or gateway page?)');
	if (!isPollResponse(json)) return transient('invalid_response', 'the status answer had no "status" field');
	return interpretStatus(rt, json);
}

/**
 * {@link pollResponseSchema}'s check without its copy of the answer (every poll of every job takes this path): an
 * object (not an array) whose `status` is a non-empty string and whose `id`, if any, is a string or null.
 */
export function isPollResponse(json: unknown): json is z.infer<typeof pollResponseSchema> {
	if (typeof json !== 'object' || json === null || Array.isArray(json)) return false;
	const { status, id } = json as Record<string, unknown>;
	return typeof status === 'string' && status.length > 0 && (id === undefined || id === null || typeof id === 'string');
}

/** Interprets a status answer. Throws the FluxError of a final failure. */
export function interpretStatus(rt: JobRuntime, data: z.infer<typeof pollResponseSchema>): PollOutcome {
	const status = data.status.trim();
	const key = status.toLowerCase();
	if (key === 'ready') {
		const result = readyResultSchema.safeParse(data.result);
		if (!result.success) throw rt.error('invalid_response', 'FLUX API reported the task Ready but gave no result URL (result.sample)');
		rt.ready = true;
		if (rt.cost === undefined && typeof data.cost === 'number' && Number.isFinite(data.cost) && data.cost >= 0) rt.cost = data.cost;
		return { state: 'ready', ready: result.data };
	}
	const final = FINAL_STATUSES[key];
	if (final) {
		const [kind, message] = final;
		throw rt.error(kind, `${message}${kind === 'generation_error' ? detailOf(data) : ''}`);
	}
	const progress = progressFraction(data.progress);
	return progress === undefined ? { state: 'pending', status } : { state: 'pending', status, progress };
}

function detailOf(data: Record<string, unknown>): string {
	const candidate = data.details ?? data.error ?? data.message ?? data.result;
	if (candidate === undefined || candidate === null) return '';
	const msg = apiErrorMessage(JSON.stringify({ detail: candidate }));
	return msg ? `: ${msg}` : '';
}
