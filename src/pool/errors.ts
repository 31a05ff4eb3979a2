/**
 * `instanceof` matches by name, so an error thrown by another copy of this module
 * (two copies in one process share one pool set) is still recognised.
 */
function isNamed(value: unknown, name: string): boolean {
	return value instanceof Error && value.name === name;
}

/** A wait (at the capacity gate or for a job) or a job itself was cancelled. */
export class PoolCancelledError extends Error {
	override name = 'PoolCancelledError';

	constructor(message = 'Cancelled.') {
		super(message);
	}

	static [Symbol.hasInstance](value: unknown): boolean {
		return isNamed(value, 'PoolCancelledError');
	}
}

/** The id was never seen by this process (or its tombstone has been forgotten). */
export class UnknownJobError extends Error {
	override name = 'UnknownJobError';

	constructor(readonly jobId: string) {
		super(`Unknown job "${jobId}": it was not submitted in this n8n process (was n8n restarted?).`);
	}

	static [Symbol.hasInstance](value: unknown): boolean {
		return isNamed(value, 'UnknownJobError');
	}
}

/** The job existed, but its record was dropped (time-to-live or the byte bound). */
export class ExpiredJobError extends Error {
	override name = 'ExpiredJobError';

	constructor(readonly jobId: string) {
		super(
			`Job "${jobId}" has expired: its result was dropped after the retention time or to stay ` +
				'within the memory limit. Run the submit node again.',
		);
	}

	static [Symbol.hasInstance](value: unknown): boolean {
		return isNamed(value, 'ExpiredJobError');
	}
}
