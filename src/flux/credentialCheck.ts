/**
 * The credential test (the n8n "Test" button), right on BFL and on any relay:
 * `GET …/credits` where it is served, else a poll for a task id that cannot
 * exist (authenticated, free, idempotent: every relay serves it). Never
 * submits a job, never throws, bounded in time and body size; every message
 * is redacted.
 */
import { randomUUID } from 'node:crypto';
import { Dispatcher, request } from 'undici';
import { FluxCredentials, FluxEndpoints, defaultPollUrl, resolveEndpoints } from './endpoints';
import { fluxDispatchers } from './httpAgent';
import { redact } from '../redact';
import { errorCode } from './retryPolicy';
import { apiErrorMessage, drainBody, headerValue, parseJson } from './body';

/** Result of {@link checkFluxCredentials}. */
export interface CredentialTestResult {
	ok: boolean;
	message: string;
	statusCode?: number;
}

/** Options of {@link checkFluxCredentials}. */
export interface CredentialCheckOptions {
	/** Cancels the test (the result then says so). */
	signal?: AbortSignal;
	/** Bound on the whole test, both requests included (default 15 000 ms). */
	timeoutMs?: number;
	/** An undici dispatcher instead of the shared agent (tests). */
	dispatcher?: Dispatcher;
}

/** Default bound on the whole credential test. */
export const DEFAULT_CREDENTIAL_TEST_TIMEOUT_MS = 15_000;
/** Bodies are read up to this size; beyond it the rest is discarded. */
const MAX_BODY_BYTES = 64 * 1024;
/** Task id prefix of the fallback poll: no real task carries it. */
const PROBE_ID_PREFIX = 'credential-test-';

const ACCEPTED = 'Connection successful: the API key was accepted';

/** Runs the credential test (see the module comment). Resolves, never rejects. */
export async function checkFluxCredentials(
	creds: FluxCredentials,
	opts: CredentialCheckOptions = {},
): Promise<CredentialTestResult> {
	const secrets = creds && typeof creds.apiKey === 'string' ? [creds.apiKey] : [];
	let endpoints: FluxEndpoints;
	try {
		endpoints = resolveEndpoints(creds);
	} catch (err) {
		return { ok: false, message: redact(err instanceof Error ? err.message : String(err), secrets) };
	}
	const timeoutMs = opts.timeoutMs !== undefined && opts.timeoutMs > 0 ? opts.timeoutMs : DEFAULT_CREDENTIAL_TEST_TIMEOUT_MS;
	const bound = testBound(timeoutMs, opts.signal);
	try {
		const result = await runProbes(endpoints, bound, opts.dispatcher);
		return { ...result, message: redact(result.message, [...secrets, endpoints.apiKey]) };
	} catch (err) {
		return { ok: false, message: redact(describeFailure(err, endpoints, bound), [...secrets, endpoints.apiKey]) };
	}
}

/** `/credits` first; when it is not served, the poll of a task that cannot exist. */
async function runProbes(endpoints: FluxEndpoints, bound: TestBound, dispatcher?: Dispatcher): Promise<CredentialTestResult> {
	const credits = await probe(endpoints.creditsUrl, endpoints, bound, dispatcher);
	const fromCredits = judgeCredits(credits, endpoints);
	if (fromCredits) return fromCredits;
	const pollUrl = defaultPollUrl(endpoints, `${PROBE_ID_PREFIX}${randomUUID()}`);
	const answer = await probe(pollUrl, endpoints, bound, dispatcher);
	if (isBare404(answer)) {
		// A JSON 404 that does not speak of a task may be any server's "no such route": the key counts as
		// accepted only if the same poll without it is refused (the route exists and checks keys).
		const keyless = await probe(pollUrl, endpoints, bound, dispatcher, false);
		if (keyless.status === 401 || keyless.status === 403) return judgePoll({ ...answer, text: 'Task not found' }, endpoints);
		return notTheApi({ ...answer, json: undefined }, endpoints);
	}
	return judgePoll(answer, endpoints);
}

/** A 404 with a JSON body that does not mention a task. */
function isBare404(answer: Answer): boolean {
	return answer.status === 404 && answer.json !== undefined && !answer.html && !/task/i.test(answer.text);
}

/** One answer, as far as the test needs it. */
type Answer = Awaited<ReturnType<typeof probe>>;

/** One authenticated GET, no redirects followed, body read up to {@link MAX_BODY_BYTES}. */
async function probe(url: string, endpoints: FluxEndpoints, bound: TestBound, dispatcher?: Dispatcher, withKey = true) {
	const remaining = bound.remainingMs();
	const res = await request(url, {
		dispatcher: dispatcher ?? fluxDispatchers().api,
		method: 'GET',
		headers: { ...(withKey ? endpoints.authHeaders : {}), accept: 'application/json' },
		signal: bound.signal,
		headersTimeout: remaining,
		bodyTimeout: remaining,
	});
	const text = await drainBody(res.body, MAX_BODY_BYTES);
	const contentType = (headerValue(res.headers, 'content-type') ?? '').toLowerCase();
	const json = parseJson(text);
	return {
		status: res.statusCode,
		location: headerValue(res.headers, 'location'),
		html: contentType.includes('html') || /^\s*</.test(text),
		json: json !== null && typeof json === 'object' ? json : undefined,
		text,
	};
}

/** The verdict of `/credits`, or undefined when it is not served (fall back to the poll). */
function judgeCredits(answer: Answer, endpoints: FluxEndpoints): CredentialTestResult | undefined {
	const { status } = answer;
	const refusedOrMoved = refusedOrRedirected(answer, endpoints);
	if (refusedOrMoved) return refusedOrMoved;
	if (status === 402) {
		return { ok: true, message: `${ACCEPTED}, but the account is out of credits (HTTP 402)`, statusCode: status };
	}
	if (status >= 200 && status < 300 && answer.json !== undefined) {
		const balance = creditBalance(answer.json);
		return { ok: true, message: balance === undefined ? ACCEPTED : `${ACCEPTED} (credits: ${balance})`, statusCode: status };
	}
	return undefined;
}

/** The balance a credits body states (`credits` or `balance`), if any. */
function creditBalance(json: unknown): string | undefined {
	const body = json as Record<string, unknown>;
	for (const key of ['credits', 'balance']) {
		const value = body[key];
		if (typeof value === 'number' && Number.isFinite(value)) return String(value);
		if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return value.trim();
	}
	return undefined;
}

/** The verdict of the poll for a task that cannot exist. */
function judgePoll(answer: Answer, endpoints: FluxEndpoints): CredentialTestResult {
	const { status } = answer;
	const refusedOrMoved = refusedOrRedirected(answer, endpoints);
	if (refusedOrMoved) return refusedOrMoved;
	if (isTaskAnswer(answer)) {
		return { ok: true, message: `${ACCEPTED} (the API answered a status check for an unknown task)`, statusCode: status };
	}
	if (answer.html || status === 404 || status === 405 || (status >= 200 && status < 300)) return notTheApi(answer, endpoints);
	const said = apiErrorMessage(answer.text);
	return failed(status, `The FLUX API answered HTTP ${status}${said ? `: ${said}` : ''}`);
}

/** JSON from the poll route: 2xx with an `id` or `status` field, or a 404 about the (unknown) task. */
function isTaskAnswer(answer: Answer): boolean {
	if (answer.json === undefined || answer.html) return false;
	if (answer.status === 404) return /task/i.test(answer.text);
	const body = answer.json as Record<string, unknown>;
	return answer.status >= 200 && answer.status < 300 && ('status' in body || 'id' in body);
}

/** The Base URL answers, but not as the FLUX API (a web page, an unknown route, something else's JSON). */
function notTheApi(answer: Answer, endpoints: FluxEndpoints): CredentialTestResult {
	const what = answer.html ? 'a web page' : answer.status === 404 || answer.status === 405 ? 'no such route' : 'something else';
	const style = endpoints.style === 'relay' ? 'relay: the routes are under /bfl/v1/' : 'bfl: the routes are under /v1/';
	return failed(answer.status, `The Base URL answered with ${what} (HTTP ${answer.status}), not the FLUX API: check the Base URL and the API style (${style})`);
}

/** A failed test that got an HTTP answer. */
function failed(statusCode: number, message: string): CredentialTestResult {
	return { ok: false, message, statusCode };
}

/**
 * The verdict of either probe on a 401/403 (the key refused) or a redirect: says http vs https when that is the
 * difference, else that the Base URL points elsewhere; undefined for any other answer.
 */
function refusedOrRedirected(answer: Answer, endpoints: FluxEndpoints): CredentialTestResult | undefined {
	const status = answer.status;
	if (status === 401 || status === 403) return failed(status, `The API key was refused (HTTP ${status}): check the FLUX API credential`);
	if (status < 300 || status >= 400) return undefined;
	let target: URL | undefined;
	try {
		target = answer.location ? new URL(answer.location, endpoints.base) : undefined;
	} catch {
		target = undefined;
	}
	const from = endpoints.base.protocol.replace(':', '');
	if (target && target.protocol !== endpoints.base.protocol && (target.protocol === 'https:' || target.protocol === 'http:')) {
		const to = target.protocol.replace(':', '');
		return failed(status, `The Base URL redirects (HTTP ${status}) from ${from} to ${to}: check http vs https in the Base URL (it should start with ${to})`);
	}
	const where = target && target.host !== endpoints.base.host ? ` to host ${target.host}` : '';
	return failed(status, `The Base URL redirects (HTTP ${status})${where}: the API is not at this address; check the Base URL (and http vs https)`);
}

/** A message for a request that got no HTTP answer: which of unreachable, timeout, TLS, cancelled. */
function describeFailure(err: unknown, endpoints: FluxEndpoints, bound: TestBound): string {
	const host = endpoints.base.host;
	if (bound.cancelled()) return 'The credential test was cancelled';
	if (bound.timedOut()) return `No answer from ${host} within ${bound.seconds()} s: check the Base URL and that the API is reachable`;
	const code = errorCode(err) ?? '';
	const reason = NETWORK_REASONS[code];
	if (reason) return `Could not reach the FLUX API at ${host}: ${reason}`;
	if (/^ERR_(SSL|TLS)_|^EPROTO$/.test(code)) {
		return `Could not reach the FLUX API at ${host}: the TLS handshake failed (${code}): check http vs https in the Base URL`;
	}
	if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'HPE_INVALID_CONSTANT') {
		return `Could not reach the FLUX API at ${host}: the server closed the connection (${code}): check http vs https in the Base URL`;
	}
	const message = err instanceof Error ? err.message : String(err);
	return `Could not reach the FLUX API at ${host}${code ? ` (${code})` : ''}: ${message}`;
}

const UNREACHABLE = 'check the Base URL (host and port) and that the API is reachable from n8n';
const NETWORK_REASONS: Record<string, string> = {
	ECONNREFUSED: `the connection was refused: ${UNREACHABLE}`,
	ENOTFOUND: `the host name was not found: ${UNREACHABLE}`,
	EAI_AGAIN: `the host name could not be resolved: ${UNREACHABLE}`,
	EHOSTUNREACH: `the host is unreachable: ${UNREACHABLE}`,
	ENETUNREACH: `the network is unreachable: ${UNREACHABLE}`,
	UND_ERR_CONNECT_TIMEOUT: `the connection timed out: ${UNREACHABLE}`,
	ETIMEDOUT: `the connection timed out: ${UNREACHABLE}`,
	UND_ERR_HEADERS_TIMEOUT: `no answer in time: ${UNREACHABLE}`,
	UND_ERR_BODY_TIMEOUT: `the answer stalled: ${UNREACHABLE}`,
	DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed and was not trusted',
	SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate chain is self-signed and was not trusted',
	CERT_HAS_EXPIRED: 'its TLS certificate has expired',
	ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate does not match the host name in the Base URL',
	UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate could not be verified',
};

/** The test's overall time bound and the caller's cancel, as one signal. */
function testBound(timeoutMs: number, caller?: AbortSignal) {
	const deadline = Date.now() + timeoutMs;
	const timeout = AbortSignal.timeout(timeoutMs);
	return {
		signal: caller ? AbortSignal.any([caller, timeout]) : timeout,
		remainingMs: () => Math.max(1, deadline - Date.now()),
		cancelled: () => !timeout.aborted && caller?.aborted === true,
		timedOut: () => timeout.aborted,
		seconds: () => Math.round(timeoutMs / 100) / 10,
	};
}

type TestBound = ReturnType<typeof testBound>;
