import { poolErrorCode, type PoolErrorCode } from '../pool';

/** The error kind a slot row shows for the pool's own errors. */
const KIND_BY_POOL_CODE: Record<PoolErrorCode, string> = {
	POOL_CANCELLED: 'cancelled',
	UNKNOWN_JOB: 'unknown_job',
	EXPIRED_JOB: 'expired',
};

/**
 * A job's error as the collector shows it: redacted text, and a kind when known.
 * Classified by value (a `kind` field, else a pool error `code`), never by class:
 * the error may come from another copy of this package sharing the pool.
 */
export function describeJobError(
	error: unknown,
	redact: (text: string) => string,
): { message: string; kind?: string; taskId?: string; cost?: number } {
	const fields: Record<string, unknown> = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
	const code = poolErrorCode(error);
	const kind = typeof fields.kind === 'string' ? fields.kind : code && KIND_BY_POOL_CODE[code];
	const text =
		typeof fields.message === 'string' ? fields.message : error === undefined ? 'unknown error' : String(error);
	return {
		message: redact(text),
		...(kind ? { kind } : {}),
		...(typeof fields.taskId === 'string' ? { taskId: fields.taskId } : {}),
		...(typeof fields.cost === 'number' && Number.isFinite(fields.cost) ? { cost: fields.cost } : {}),
	};
}
