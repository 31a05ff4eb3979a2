/** Stable codes of the pool's errors: checked by value, so an error from another copy of this package still classifies. */
export type PoolErrorCode = 'POOL_CANCELLED' | 'UNKNOWN_JOB' | 'EXPIRED_JOB';

const POOL_ERROR_CODES = new Set<string>(['POOL_CANCELLED', 'UNKNOWN_JOB', 'EXPIRED_JOB']);

/** Copies from before the codes existed are known by their error's name. */
const CODE_BY_NAME: Readonly<Record<string, PoolErrorCode>> = {
	PoolCancelledError: 'POOL_CANCELLED',
	UnknownJobError: 'UNKNOWN_JOB',
	ExpiredJobError: 'EXPIRED_JOB',
};

/** The pool error code of `value` (its `code`, else its `name`), or undefined when it is not a pool error. */
export function poolErrorCode(value: unknown): PoolErrorCode | undefined {
	if (typeof value !== 'object' || value === null) return undefined;
	const { code, name } = value as { code?: unknown; name?: unknown };
	if (typeof code === 'string' && POOL_ERROR_CODES.has(code)) return code as PoolErrorCode;
	return typeof name === 'string' && Object.hasOwn(CODE_BY_NAME, name) ? CODE_BY_NAME[name] : undefined;
}

/** A wait (at the capacity gate or for a job) or a job itself was cancelled. */
export class PoolCancelledError extends Error {
	override name = 'PoolCancelledError';
	readonly code = 'POOL_CANCELLED';

	constructor(message = 'Cancelled.') {
		super(message);
	}

	/** `instanceof` matches by code, so another copy's error is recognised too. */
	static [Symbol.hasInstance](value: unknown): boolean {
		return poolErrorCode(value) === 'POOL_CANCELLED';
	}
}

/** The id was never seen by this process (or its tombstone has been forgotten). */
export class UnknownJobError extends Error {
	override name = 'UnknownJobError';
	readonly code = 'UNKNOWN_JOB';

	constructor(readonly jobId: string) {
		super(`Unknown job "${jobId}": it was not submitted in this n8n process (was n8n restarted?).`);
	}

	static [Symbol.hasInstance](value: unknown): boolean {
		return poolErrorCode(value) === 'UNKNOWN_JOB';
	}
}

/** The job existed, but its record was dropped (time-to-live, or the byte bound after it was collected). */
export class ExpiredJobError extends Error {
	override name = 'ExpiredJobError';
	readonly code = 'EXPIRED_JOB';

	constructor(readonly jobId: string) {
		super(
			`Job "${jobId}" has expired: its result was dropped after the retention time ` +
				'(COMFLY_RESULT_TTL_SECONDS) or, once collected, to stay within the memory limit. Run the submit node again.',
		);
	}

	static [Symbol.hasInstance](value: unknown): boolean {
		return poolErrorCode(value) === 'EXPIRED_JOB';
	}
}
