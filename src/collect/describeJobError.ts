import { FluxError, redact } from '../flux';
import { PoolCancelledError } from '../pool';

/** A job's error as the collector shows it: redacted text, and a kind when known. */
export function describeJobError(error: unknown): { message: string; kind?: string; taskId?: string } {
	if (error instanceof FluxError) return { message: error.message, kind: error.kind, taskId: error.taskId };
	if (error instanceof PoolCancelledError) return { message: redact(error.message), kind: 'cancelled' };
	if (error instanceof Error) return { message: redact(error.message) };
	return { message: error === undefined ? 'unknown error' : redact(String(error)) };
}
