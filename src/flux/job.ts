import type { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import type { FluxEndpoints } from './endpoints';
import { FluxError, isFluxError, type FluxErrorKind } from './errors';
import type { JobSettings } from './generateImage';
import type { FluxDispatchers } from './httpAgent';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorCode, type SleepFunction } from './retryPolicy';
import { SubmitLifecycle } from './submitSteps';

/** Which step a job is in (for messages), and the requests it makes. */
export type JobPhase = 'submit' | 'poll' | 'download';

/** HTTP attempts made by a job, per step. */
export type AttemptCounts = Record<JobPhase | 'total', number>;

/** One HTTP request of a job. */
export interface JobRequest {
	method: 'GET' | 'POST';
	headers?: Record<string, string>;
	body?: string | Readable;
	/** Which of the job's dispatchers sends it (default `api`). */
	dispatcher?: keyof FluxDispatchers;
	/** Close the connection after this request (submits: never reuse a socket). */
	reset?: boolean;
}

const PHASE_WORDS: Record<JobPhase, string> = {
	submit: 'while submitting',
	poll: 'while waiting for the image',
	download: 'while downloading the image',
};

/**
 * Per-job state shared by the steps: the abort signal (caller's cancel + job timeout), the
 * deadline, attempt counters, the secrets to redact, and the one request helper.
 */
export class JobRuntime {
	readonly endpoints: FluxEndpoints;
	readonly secrets: string[];
	readonly signal: AbortSignal;
	readonly deadline: number;
	readonly attempts: AttemptCounts = { submit: 0, poll: 0, download: 0, total: 0 };
	phase: JobPhase = 'submit';
	taskId?: string;
	/** True while a submit may be on the wire (its outcome unknown). */
	submitInFlight = false;
	/** The accepted submit's round trip (ms): the task was created during it (the poll schedule's origin). */
	submitRoundTripMs?: number;
	/** The last status seen while polling (for timeout messages). */
	lastStatus?: string;
	/** The submit's steps (admission, budget, journal), told each event of the job in order. */
	readonly lifecycle: SubmitLifecycle;
	/** What the job cost as the API reported it (credits): the submit answer's, else the finished poll's. */
	cost?: number;
	/** True once a poll saw the task Ready. */
	ready = false;

	private readonly controller = new AbortController();
	private readonly timer: NodeJS.Timeout;
	private readonly onCallerAbort = () => this.controller.abort();

	constructor(readonly settings: JobSettings) {
		this.endpoints = settings.endpoints;
		this.secrets = [settings.endpoints.apiKey];
		this.signal = this.controller.signal;
		this.deadline = settings.now() + settings.timeoutMs;
		this.lifecycle = new SubmitLifecycle(this, settings.steps);
		if (settings.signal?.aborted) this.onCallerAbort();
		else settings.signal?.addEventListener('abort', this.onCallerAbort, { once: true });
		this.timer = setTimeout(() => this.controller.abort(), settings.timeoutMs);
		this.timer.unref?.();
	}

	now(): number {
		return this.settings.now();
	}

	/** Milliseconds left before the job timeout. */
	remainingMs(): number {
		return this.deadline - this.now();
	}

	/** Releases the timer and the listener on the caller's signal; tells the steps the job ended (admission, then budget). */
	dispose(): void {
		this.lifecycle.tell('onEnded', this.cost === undefined ? { ready: this.ready } : { cost: this.cost, ready: this.ready });
		clearTimeout(this.timer);
		this.settings.signal?.removeEventListener('abort', this.onCallerAbort);
	}

	/** A FluxError with this job's secrets and task id. */
	error(kind: FluxErrorKind, message: string, extra: { statusCode?: number; code?: string } = {}): FluxError {
		return new FluxError(kind, message, { ...extra, taskId: this.taskId, secrets: this.secrets });
	}

	/** The `cancelled` or `timeout` error for an aborted job. */
	abortError(): FluxError {
		const task = this.taskId ? ` (task ${this.taskId})` : '';
		const where = PHASE_WORDS[this.phase];
		const upstream = this.submitInFlight
			? ': the submit was in flight, so the job may exist upstream; it was not retried to avoid paying twice'
			: this.taskId && this.phase !== 'download'
				? ': the task may still run upstream'
				: '';
		if (this.settings.signal?.aborted) return this.error('cancelled', `FLUX job cancelled ${where}${task}${upstream}`);
		const seconds = Math.round(this.settings.timeoutMs / 100) / 10;
		const last = this.phase === 'poll' && this.lastStatus ? ` (last status: ${this.lastStatus})` : '';
		return this.error('timeout', `FLUX job timed out after ${seconds} s ${where}${task}${last}${upstream}`);
	}

	/** Throws the abort error if the job was cancelled or timed out. */
	throwIfAborted(): void {
		if (this.signal.aborted) throw this.abortError();
	}

	/** Runs `work`; when it fails and the job is aborted, throws the job's abort error instead. */
	async unlessAborted<T>(work: () => Promise<T>): Promise<T> {
		try {
			return await work();
		} catch (err) {
			this.throwIfAborted();
			throw err;
		}
	}

	/** Sleeps (the injected sleep, if any), unless the job is aborted first: then throws its abort error. */
	async sleep(ms: number): Promise<void> {
		this.throwIfAborted();
		await this.unlessAborted(() => this.settings.sleep(Math.max(0, ms), this.signal));
		this.throwIfAborted();
	}

	/** Calls an observer; a faulty observer must not break the job. */
	notify<A extends unknown[]>(observer: ((...args: A) => void) | undefined, ...args: A): void {
		try {
			observer?.(...args);
		} catch {
			// ignored on purpose
		}
	}

	/**
	 * The one request helper: counts the attempt, sends through the step's dispatcher with the
	 * job's signal and timeouts. Raw undici errors are thrown as they are (each step classifies them).
	 */
	async send(step: JobPhase, url: string, req: JobRequest): Promise<Dispatcher.ResponseData> {
		this.throwIfAborted();
		this.attempts[step]++;
		this.attempts.total++;
		this.notify(this.settings.onAttempt, { ...this.attempts });
		return request(url, {
			dispatcher: this.settings.dispatchers[req.dispatcher ?? 'api'],
			method: req.method,
			headers: req.headers,
			body: req.body,
			reset: req.reset,
			signal: this.signal,
			headersTimeout: this.settings.requestTimeoutMs,
			bodyTimeout: this.settings.requestTimeoutMs,
		});
	}

	/** Converts anything thrown inside the job into a redacted FluxError (also one from another copy of this package). */
	toFluxError(err: unknown): FluxError {
		if (this.signal.aborted && !(isFluxError(err) && err.kind !== 'network' && err.kind !== 'download_failed')) {
			return this.abortError();
		}
		if (isFluxError(err)) {
			const fe = err instanceof FluxError ? err : FluxError.from(err, this.secrets);
			return fe.withTaskId(this.taskId, this.secrets);
		}
		const code = errorCode(err);
		const message = err instanceof Error ? err.message : String(err);
		return this.error('network', `FLUX request failed${code ? ` (${code})` : ''}: ${message}`, { code });
	}
}

/** The default sleep, as a {@link SleepFunction}. */
export const realSleep: SleepFunction = (ms, signal) => sleep(ms, undefined, { signal });
