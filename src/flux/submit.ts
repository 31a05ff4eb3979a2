/**
 * The submit of a job: the POST under the paid-job rule (retried only when no task was created), its held-back
 * body, its acknowledgement, and how each answer or failure is told to the job's submit lifecycle (submitSteps.ts).
 */
import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import { z } from 'zod';
import { apiErrorMessage, drainBody, headerValue, parseJson, readBodyText } from './body';
import type { RequestPayload } from './request';
import type { JobRuntime } from './job';
import { transient, withRetries, type GiveUpReason, type Transient } from './retry';
import { classifyNetworkError, describeNetworkError, errorCode, parseRetryAfter } from './retryPolicy';
import { MAYBE_SUBMITTED_NOTE, statusOutcome } from './statusTable';

/** An upstream task: what a submit returns, and what a later run needs to re-attach to it. */
export interface FluxTask {
	taskId: string;
	/** BFL only: where to poll (relay responses may echo one; it is ignored). */
	pollingUrl?: string;
	/** The submit answer's cost in credits, when it reported one (to the steps' `onAccepted`: kept for a later re-attach). */
	cost?: number;
}

/**
 * `POST …/<endpoint>` under the paid-job rule: retried only when the task provably was not
 * created (connection never opened, 429, 503); every ambiguous failure is `maybe_submitted`.
 * Each event of it runs through the job's submit lifecycle (submitSteps.ts, `rt.lifecycle`).
 * `payload` (the JSON body) is only referenced until this resolves.
 */
export async function submitTask(rt: JobRuntime, payload: RequestPayload): Promise<FluxTask> {
	rt.phase = 'submit';
	const task = await withRetries(rt, {
		policy: rt.settings.submitRetry,
		connectPolicy: rt.settings.connectRetry,
		stopAtDeadline: true,
		attempt: () => submitOnce(rt, payload),
		giveUp: (failure, reason) => giveUp(rt, failure, reason),
	});
	rt.taskId = task.taskId;
	rt.lifecycle.tell('onAccepted', task, rt.cost);
	return task;
}

function giveUp(rt: JobRuntime, failure: Transient, reason: GiveUpReason) {
	const why =
		reason.why === 'attempts'
			? `failed after ${reason.attempts} attempts: ${failure.detail}`
			: `failed: ${failure.detail}; waiting ${Math.ceil(reason.delayMs / 1000)} s more would pass the job timeout`;
	return rt.error(failure.kind, `FLUX submit ${why} (the task was not created)`, { statusCode: failure.statusCode, code: failure.code });
}

async function submitOnce(rt: JobRuntime, payload: RequestPayload): Promise<FluxTask | Transient> {
	for (;;) {
		await rt.lifecycle.beforePost();
		const answer = await post(rt, payload);
		if ('transient' in answer) {
			if (answer.notConnected) {
				rt.lifecycle.tell('onNotCreated');
				rt.lifecycle.tell('onUnsent');
			}
			return answer;
		}
		const { status, headers, text } = answer;
		if (status >= 200 && status < 300) return parseAcknowledgement(rt, status, text);
		const outcome = statusOutcome('submit', status, apiErrorMessage(text, rt.settings.fieldLabel));
		if (outcome.retry) rt.lifecycle.tell('onNotCreated'); // 429 / 503: no task was created
		if (status < 500) rt.lifecycle.tell('onUnsent'); // answered and refused (429, 4xx, a redirect): no task; 5xx may have made one
		if (status === 429 && rt.lifecycle.rateLimited(headers)) continue; // wait for a turn, resubmit
		if (!outcome.retry) throw rt.error(outcome.kind, outcome.message, { statusCode: status });
		const retryAfterMs = parseRetryAfter(headerValue(headers, 'retry-after'), rt.now());
		return transient(outcome.kind, outcome.detail, { statusCode: status, retryAfterMs });
	}
}

/**
 * The body step: sends one submit on a fresh connection and reads its answer; `submitInFlight` is true until the
 * outcome is known. When a step acts before the body leaves (the budget, the journal), the request is started with
 * its body held back, and once its connection is up (undici reads a stream body only from a connected socket) the
 * steps' `beforeSend` run in order, then the body leaves at once: the journal's `submitting` precedes the request by
 * a turn of the event loop, not by a connection (a kill -9 in between must not leave a job "maybe paid" that never
 * left). A server creates no task from a request whose body never came: a step that stops it aborts the request
 * before anything was written to it.
 */
async function post(rt: JobRuntime, payload: RequestPayload) {
	const headers = {
		...rt.endpoints.authHeaders,
		'content-type': 'application/json',
		'content-length': String(payload.length),
		accept: 'application/json',
	};
	// A new stream over the same parts for every attempt: shared reference-image bytes are never copied per job.
	const gate = rt.lifecycle.holdsBody ? new PassThrough() : undefined;
	const body = gate ?? Readable.from(payload.parts, { objectMode: false });
	const sending = rt.send('submit', rt.endpoints.submitUrl, { method: 'POST', headers, body, dispatcher: 'submit', reset: true });
	let ended = false;
	sending.then(() => (ended = true), () => (ended = true)); // awaited below; a failure meanwhile must not surface as unhandled
	if (gate && (await connected(gate, sending))) {
		try {
			await rt.lifecycle.beforeSend();
		} catch (err) {
			gate.destroy(); // its body never leaves: no task
			await sending.catch(() => undefined);
			throw err;
		}
		if (ended) {
			// The connection closed while the steps ran, before a byte of the request was written.
			rt.lifecycle.tell('onUnsent');
			return transient('network', 'the connection closed before the submit was sent', { notConnected: true });
		}
		Readable.from(payload.parts, { objectMode: false }).pipe(gate);
	}
	rt.lifecycle.tell('onSent');
	rt.submitInFlight = true;
	const sentAt = rt.now();
	let res;
	try {
		res = await sending;
	} catch (err) {
		return requestFailure(rt, err);
	}
	const status = res.statusCode;
	const ok = status >= 200 && status < 300;
	let text: string;
	try {
		text = ok ? await readBodyText(res.body) : await drainBody(res.body);
	} catch (err) {
		rt.throwIfAborted();
		rt.submitInFlight = false;
		const why = describeNetworkError(err);
		throw rt.error('maybe_submitted', `FLUX submit answered ${status} but the response could not be read (${why}): ${MAYBE_SUBMITTED_NOTE}`, {
			statusCode: status,
		});
	}
	rt.submitInFlight = false;
	rt.submitRoundTripMs = rt.now() - sentAt; // the last answer's: the accepted submit's when it was accepted
	if (!ok && status < 500 && rt.signal.aborted) rt.lifecycle.tell('onUnsent'); // answered and refused, then cancelled: no task
	rt.throwIfAborted();
	return { status, headers: res.headers, text };
}

/**
 * True once undici reads the held body (its socket is connected: the request's turn has come); false when the
 * request ended before that (refused connection, cancelled): then nothing was sent and nothing is reserved.
 */
async function connected(gate: PassThrough, sending: Promise<unknown>): Promise<boolean> {
	const stop = new AbortController();
	try {
		return await Promise.race([
			once(gate, 'resume', { signal: stop.signal }).then(() => true, () => false),
			sending.then(() => false, () => false),
		]);
	} finally {
		stop.abort();
	}
}

/** A submit that threw: retryable only when nothing was sent; otherwise the job may exist upstream. */
function requestFailure(rt: JobRuntime, err: unknown): Transient {
	const cls = classifyNetworkError(err);
	if (cls !== 'ambiguous') rt.submitInFlight = false;
	if (cls !== 'ambiguous' && rt.signal.aborted) rt.lifecycle.tell('onUnsent'); // cancelled, but nothing had been sent
	rt.throwIfAborted(); // an ambiguous failure of a cancelled job stays in flight: it may exist upstream
	rt.submitInFlight = false;
	const code = errorCode(err) ?? 'unknown error';
	if (code === 'UND_ERR_INVALID_ARG') {
		// Rejected by the HTTP client before anything was sent.
		rt.lifecycle.tell('onUnsent');
		throw rt.error('bad_request', `The FLUX request could not be built (${describeNetworkError(err)}); the job was not submitted`, { code });
	}
	if (cls === 'not_connected') {
		return transient('network', `could not connect to the FLUX API (${code})`, { code, notConnected: true });
	}
	if (cls === 'tls_certificate') {
		rt.lifecycle.tell('onUnsent'); // the handshake failed: no request byte was written
		throw rt.error('network', `Could not connect to the FLUX API: TLS certificate rejected (${code}); the job was not submitted`, { code });
	}
	throw rt.error('maybe_submitted', `FLUX submit failed after the request was sent (${describeNetworkError(err)}): ${MAYBE_SUBMITTED_NOTE}`, {
		code,
	});
}

/** Submit response (lenient: extra fields pass through). */
const submitResponseSchema = z
	.object({
		id: z.string().min(1),
		polling_url: z.string().optional().nullable(),
		cost: z.number().optional().nullable(),
	})
	.passthrough();

/**
 * The acknowledgement: a 2xx answer's body → the upstream task (its id, BFL's polling URL) and the cost it reported
 * (`rt.cost`). An answer without a readable task id is `maybe_submitted`.
 */
function parseAcknowledgement(rt: JobRuntime, status: number, text: string): FluxTask {
	const json = parseJson(text);
	if (json === undefined) throw rt.error('maybe_submitted', `FLUX submit answered ${status} with invalid JSON: ${MAYBE_SUBMITTED_NOTE}`, { statusCode: status });
	const parsed = submitResponseSchema.safeParse(json);
	if (!parsed.success) {
		throw rt.error('maybe_submitted', `FLUX submit answered ${status} without a task id: ${MAYBE_SUBMITTED_NOTE}`, { statusCode: status });
	}
	const task: FluxTask = { taskId: parsed.data.id };
	if (typeof parsed.data.cost === 'number' && Number.isFinite(parsed.data.cost) && parsed.data.cost >= 0) rt.cost = parsed.data.cost;
	if (typeof parsed.data.polling_url === 'string' && parsed.data.polling_url !== '') task.pollingUrl = parsed.data.polling_url;
	return task;
}
