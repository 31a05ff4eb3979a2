import { redact } from '../redact';

/** Every way a FLUX job can fail, for exhaustive checks and reports. */
export const FLUX_ERROR_KINDS = [
	'request_moderated',
	'content_moderated',
	'generation_error',
	'task_not_found',
	'bad_request',
	'auth',
	'credits',
	'rate_limited',
	'timeout',
	'upstream_error',
	'invalid_response',
	'maybe_submitted',
	'download_failed',
	'not_an_image',
	'too_large',
	'forbidden_host',
	'cancelled',
	'network',
	'budget_exceeded',
] as const;

export type FluxErrorKind = (typeof FLUX_ERROR_KINDS)[number];

/**
 * What a failure of each kind says about the paid job (the rules: src/fluxN8n/paidJobRules.ts):
 * - `repeats`: the same request would fail the same way (another execution's such failure is taken, not re-sent);
 * - `taskMayFinish`: after an acknowledged submit, the upstream task may still finish (a re-run re-attaches);
 * - `postMayHaveLeft`: after a submit POST that was not acknowledged, a paid task may exist (a re-run never resends).
 */
export interface FluxErrorClass {
	repeats: boolean;
	taskMayFinish: boolean;
	postMayHaveLeft: boolean;
}

const CLASS_OF_KIND = {
	request_moderated: { repeats: true, taskMayFinish: false, postMayHaveLeft: false },
	content_moderated: { repeats: true, taskMayFinish: false, postMayHaveLeft: false },
	generation_error: { repeats: true, taskMayFinish: false, postMayHaveLeft: false },
	task_not_found: { repeats: false, taskMayFinish: false, postMayHaveLeft: false },
	bad_request: { repeats: true, taskMayFinish: false, postMayHaveLeft: false },
	auth: { repeats: true, taskMayFinish: false, postMayHaveLeft: false },
	credits: { repeats: true, taskMayFinish: false, postMayHaveLeft: false },
	rate_limited: { repeats: false, taskMayFinish: true, postMayHaveLeft: false },
	timeout: { repeats: false, taskMayFinish: true, postMayHaveLeft: true },
	upstream_error: { repeats: false, taskMayFinish: true, postMayHaveLeft: false },
	invalid_response: { repeats: true, taskMayFinish: false, postMayHaveLeft: false },
	maybe_submitted: { repeats: false, taskMayFinish: false, postMayHaveLeft: true },
	download_failed: { repeats: false, taskMayFinish: true, postMayHaveLeft: false },
	not_an_image: { repeats: true, taskMayFinish: false, postMayHaveLeft: false },
	too_large: { repeats: true, taskMayFinish: false, postMayHaveLeft: false },
	forbidden_host: { repeats: true, taskMayFinish: false, postMayHaveLeft: false },
	cancelled: { repeats: false, taskMayFinish: true, postMayHaveLeft: true },
	network: { repeats: false, taskMayFinish: true, postMayHaveLeft: false },
	budget_exceeded: { repeats: false, taskMayFinish: false, postMayHaveLeft: false },
} as const satisfies Record<FluxErrorKind, FluxErrorClass>;

/** The kind named by `value` (a journal record's `errorKind`, say), or undefined when it names none. */
export function fluxErrorKindOf(value: string | undefined): FluxErrorKind | undefined {
	return FLUX_ERROR_KINDS.find((kind) => kind === value);
}

/** The class of a failure of `kind`; a failure of no known kind (not a FluxError) is in none. */
export function errorClassOf(kind: string | undefined): FluxErrorClass {
	const known = fluxErrorKindOf(kind);
	return known ? CLASS_OF_KIND[known] : { repeats: false, taskMayFinish: false, postMayHaveLeft: false };
}

export interface FluxErrorOptions {
	statusCode?: number;
	taskId?: string;
	/** Secrets (API keys) to remove from the message in addition to the generic patterns. */
	secrets?: readonly string[];
	/** Low-level error code (e.g. `ECONNREFUSED`, `UND_ERR_HEADERS_TIMEOUT`), safe to show. */
	code?: string;
	/** What the job cost as the API reported it (credits), when it did before failing; 0: nothing was sent. */
	cost?: number;
}

/** The stable `name` of every {@link FluxError}, from any copy of this package. */
export const FLUX_ERROR_NAME = 'FluxError';

/**
 * A failed FLUX job. `message` is always redacted (no API key, bearer token,
 * x-key value or URL) and at most ~500 characters long. Identified by value
 * (`name` and `kind`, see {@link isFluxError}), so an error raised by another
 * copy of this package (the pool is shared by every copy: src/processWide.ts) is still one.
 */
export class FluxError extends Error {
	override readonly name = FLUX_ERROR_NAME;
	readonly kind: FluxErrorKind;
	readonly statusCode?: number;
	readonly taskId?: string;
	readonly code?: string;
	readonly cost?: number;

	constructor(kind: FluxErrorKind, message: string, options: FluxErrorOptions = {}) {
		super(redact(message, options.secrets ?? []));
		this.kind = kind;
		if (options.statusCode !== undefined) this.statusCode = options.statusCode;
		if (options.taskId !== undefined) this.taskId = options.taskId;
		if (options.code !== undefined) this.code = options.code;
		if (options.cost !== undefined) this.cost = options.cost;
	}

	/** A copy with the task id set (when it was not known where the error was raised). */
	withTaskId(taskId: string | undefined, secrets: readonly string[] = []): FluxError {
		if (taskId === undefined || this.taskId !== undefined) return this;
		return this.copy({ taskId, secrets });
	}

	/** A copy carrying what the job cost (the API's figure), unless it carries one already. */
	withCost(cost: number | undefined): FluxError {
		if (cost === undefined || this.cost !== undefined) return this;
		return this.copy({ cost });
	}

	private copy(changes: FluxErrorOptions): FluxError {
		return new FluxError(this.kind, this.message, { statusCode: this.statusCode, taskId: this.taskId, code: this.code, cost: this.cost, ...changes });
	}

	/** This copy's FluxError for one that may come from another copy of the package (same fields). */
	static from(
		err: { kind: FluxErrorKind; message: string; statusCode?: unknown; taskId?: unknown; code?: unknown; cost?: unknown },
		secrets: readonly string[] = [],
	): FluxError {
		if (err instanceof FluxError) return err;
		return new FluxError(err.kind, String(err.message), {
			statusCode: typeof err.statusCode === 'number' ? err.statusCode : undefined,
			taskId: typeof err.taskId === 'string' ? err.taskId : undefined,
			code: typeof err.code === 'string' ? err.code : undefined,
			cost: typeof err.cost === 'number' ? err.cost : undefined,
			secrets,
		});
	}
}

/**
 * True when `err` is a {@link FluxError}, checked by value (`name` and a known `kind`), not
 * by `instanceof` alone: two copies of this package have two FluxError classes.
 */
export function isFluxError(err: unknown): err is FluxError {
	if (err instanceof FluxError) return true;
	if (typeof err !== 'object' || err === null) return false;
	const { name, kind } = err as { name?: unknown; kind?: unknown };
	return name === FLUX_ERROR_NAME && typeof kind === 'string' && (FLUX_ERROR_KINDS as readonly string[]).includes(kind);
}
