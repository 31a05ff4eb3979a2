/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/flux knows nothing of n8n: it throws typed FluxError / FluxParameterError, which the node layer turns into NodeApiError / NodeOperationError. */
import { Dispatcher, request } from 'undici';
import { FluxEndpoints } from './endpoints';
import { FluxError, isFluxError } from './errors';
import { dispatcherFor } from './httpAgent';
import { PollPolicy, RetryPolicy, SleepAbortedError, errorCode, sleep } from './retryPolicy';

/** Which step a job is in (for messages). */
export type JobPhase = 'submit' | 'poll' | 'download';

/** HTTP attempts made by a job, per step. */
export interface AttemptCounts {
	submit: number;
	poll: number;
	download: number;
	total: number;
}

const CANCEL = Symbol('flux-cancel');
const TIMEOUT = Symbol('flux-timeout');

class JobAbortReason extends Error {
	constructor(readonly which: typeof CANCEL | typeof TIMEOUT) {
		super(which === CANCEL ? 'FLUX job cancelled' : 'FLUX job timed out');
		this.name = 'AbortError';
	}
}

export interface JobRuntimeOptions {
	endpoints: FluxEndpoints;
	signal?: AbortSignal;
	timeoutMs: number;
	requestTimeoutMs: number;
	maxDownloadBytes: number;
	poll: PollPolicy;
	submitRetry: RetryPolicy;
	downloadRetry: RetryPolicy;
	dispatcher?: Dispatcher;
	now: () => number;
	random: () => number;
	onAttempt?: (attempts: AttemptCounts) => void;
}

export interface HttpRequestOptions {
	method: 'GET' | 'POST';
	headers?: Record<string, string>;
	body?: string;
	/** Max wait for response headers (default: the job's request timeout). */
	headersTimeout?: number;
	/** Max idle time between body chunks (default: the job's request timeout). */
	bodyTimeout?: number;
}

/**
 * Per-job state shared by the submit, poll and download steps: the combined
 * abort signal (caller's cancel + job timeout), deadline, policies, attempt
 * counters and the secrets to redact.
 */
export class JobRuntime {
	readonly endpoints: FluxEndpoints;
	readonly secrets: string[];
	readonly signal: AbortSignal;
	readonly startedAt: number;
	readonly deadline: number;
	readonly attempts: AttemptCounts = { submit: 0, poll: 0, download: 0, total: 0 };
	phase: JobPhase = 'submit';
	taskId?: string;
	/** True while a submit request is on the wire (its outcome unknown). */
	submitInFlight = false;
	/** The last status seen while polling (for timeout messages). */
	lastStatus?: string;

	private readonly controller = new AbortController();
	private readonly timer: NodeJS.Timeout;
	private readonly callerSignal?: AbortSignal;
	private readonly onCallerAbort = () => this.controller.abort(new JobAbortReason(CANCEL));

	constructor(readonly options: JobRuntimeOptions) {
		this.endpoints = options.endpoints;
		this.secrets = [options.endpoints.apiKey];
		this.signal = this.controller.signal;
		this.startedAt = options.now();
		this.deadline = this.startedAt + options.timeoutMs;
		this.callerSignal = options.signal;
		if (this.callerSignal?.aborted) this.onCallerAbort();
		else this.callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
		this.timer = setTimeout(() => this.controller.abort(new JobAbortReason(TIMEOUT)), options.timeoutMs);
		this.timer.unref?.();
	}

	now(): number {
		return this.options.now();
	}

	/** Milliseconds left before the job timeout. */
	remainingMs(): number {
		return this.deadline - this.now();
	}

	/** Releases the timer and the listener on the caller's signal. */
	dispose(): void {
		clearTimeout(this.timer);
		this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
	}

	countAttempt(step: JobPhase): void {
		this.attempts[step]++;
		this.attempts.total++;
		try {
			this.options.onAttempt?.({ ...this.attempts });
		} catch {
			// A faulty observer must not break the job.
		}
	}

	/** A FluxError with this job's secrets and task id. */
	error(kind: FluxError['kind'], message: string, extra: { statusCode?: number; code?: string } = {}): FluxError {
		return new FluxError(kind, message, { ...extra, taskId: this.taskId, secrets: this.secrets });
	}

	/** The `cancelled` or `timeout` error for an aborted job. */
	abortError(): FluxError {
		const reason = this.signal.reason as unknown;
		const cancelled = (reason instanceof JobAbortReason && reason.which === CANCEL) || this.callerSignal?.aborted;
		const task = this.taskId ? ` (task ${this.taskId})` : '';
		const where = { submit: 'while submitting', poll: 'while waiting for the image', download: 'while downloading the image' }[
			this.phase
		];
		const upstream = this.submitInFlight
			? ': the submit was in flight, so the job may exist upstream; it was not retried to avoid paying twice'
			: this.taskId && this.phase !== 'download'
				? ': the task may still run upstream'
				: '';
		if (cancelled) return this.error('cancelled', `FLUX job cancelled ${where}${task}${upstream}`);
		const seconds = Math.round(this.options.timeoutMs / 100) / 10;
		const last = this.phase === 'poll' && this.lastStatus ? ` (last status: ${this.lastStatus})` : '';
		return this.error('timeout', `FLUX job timed out after ${seconds} s ${where}${task}${last}${upstream}`);
	}

	/** Throws the abort error if the job was cancelled or timed out. */
	throwIfAborted(): void {
		if (this.signal.aborted) throw this.abortError();
	}

	/** Sleeps, unless the job is aborted first (then throws its `cancelled`/`timeout` error). */
	async sleep(ms: number): Promise<void> {
		try {
			await sleep(ms, this.signal);
		} catch (err) {
			if (err instanceof SleepAbortedError || this.signal.aborted) throw this.abortError();
			throw err;
		}
	}

	/** One HTTP request through the shared agent with the job's signal. Raw undici errors are thrown as they are. */
	async http(url: string, opts: HttpRequestOptions): Promise<Dispatcher.ResponseData> {
		this.throwIfAborted();
		return request(url, {
			dispatcher: dispatcherFor(this.options.dispatcher),
			method: opts.method,
			headers: opts.headers,
			body: opts.body,
			signal: this.signal,
			headersTimeout: opts.headersTimeout ?? this.options.requestTimeoutMs,
			bodyTimeout: opts.bodyTimeout ?? this.options.requestTimeoutMs,
		});
	}

	/** Converts anything thrown inside the job into a redacted FluxError. */
	toFluxError(err: unknown): FluxError {
		if (this.signal.aborted && !(isFluxError(err) && err.kind !== 'network' && err.kind !== 'download_failed')) {
			return this.abortError();
		}
		if (isFluxError(err)) {
			const other = err as { kind: FluxError['kind']; message: string };
			const fe = err instanceof FluxError ? err : new FluxError(other.kind, other.message, { secrets: this.secrets });
			return fe.withTaskId(this.taskId, this.secrets);
		}
		const code = errorCode(err);
		const message = err instanceof Error ? err.message : String(err);
		return this.error('network', `FLUX request failed${code ? ` (${code})` : ''}: ${message}`, { code });
	}
}

/** Reads a response body as text, at most `limit` bytes (the rest is discarded and the socket closed). */
export async function readBodyText(body: Dispatcher.ResponseData['body'], limit = 1024 * 1024): Promise<string> {
	const chunks: Buffer[] = [];
	let total = 0;
	for await (const chunk of body) {
		const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
		total += buf.length;
		if (total > limit) {
			body.destroy();
			throw new ResponseTooLargeError(limit);
		}
		chunks.push(buf);
	}
	return Buffer.concat(chunks).toString('utf8');
}

/** Thrown by {@link readBodyText} when a response exceeds its limit. */
export class ResponseTooLargeError extends Error {
	constructor(readonly limit: number) {
		super(`response larger than ${limit} bytes`);
		this.name = 'ResponseTooLargeError';
	}
}

/** Reads and discards an error response body (bounded), ignoring failures. Returns the text read. */
export async function drainBody(body: Dispatcher.ResponseData['body'], limit = 64 * 1024): Promise<string> {
	try {
		return await readBodyText(body, limit);
	} catch {
		try {
			body.destroy();
		} catch {
			// ignore
		}
		return '';
	}
}

/** Extracts a human-readable message from an API error body (`detail`, `message`, `error`), else the raw text. */
export function apiErrorMessage(text: string): string {
	const trimmed = text.trim();
	if (trimmed === '') return '';
	try {
		const json = JSON.parse(trimmed) as unknown;
		const pick = (v: unknown): string | undefined => {
			if (typeof v === 'string') return v;
			if (Array.isArray(v)) {
				const parts = v.map((x) => pick(x)).filter((x): x is string => !!x);
				return parts.length ? parts.join('; ') : undefined;
			}
			if (v && typeof v === 'object') {
				const o = v as Record<string, unknown>;
				const msg = pick(o.msg ?? o.message ?? o.detail ?? o.error);
				if (msg && Array.isArray(o.loc)) return `${o.loc.filter((x) => x !== 'body').join('.')}: ${msg}`;
				return msg;
			}
			return undefined;
		};
		if (json && typeof json === 'object') {
			const o = json as Record<string, unknown>;
			const msg = pick(o.detail) ?? pick(o.message) ?? pick(o.error) ?? pick(o.status);
			if (msg) return msg.slice(0, 300);
		}
	} catch {
		// not JSON
	}
	return trimmed.slice(0, 200);
}

/** Header value as a single string. */
export function headerValue(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
	const v = headers[name.toLowerCase()];
	if (Array.isArray(v)) return v[0];
	return v ?? undefined;
}
