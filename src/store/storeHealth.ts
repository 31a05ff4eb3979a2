/**
 * Health of the store shared by the result store and the journal: the first fault is logged once (one clear
 * warning), later faults only update `health()`, so the collector's report can say the store was not used.
 */
import { redact } from '../flux/redact';

export interface StoreHealth {
	ok: boolean;
	/** Redacted, human-readable cause of the last fault. */
	reason?: string;
}

/** What a filesystem error code means for the store, in words. */
const HINTS: Record<string, string> = {
	ENOSPC: 'disk full',
	EDQUOT: 'disk quota exceeded',
	EACCES: 'folder not writable',
	EPERM: 'folder not writable',
	EROFS: 'read-only file system',
	EEXIST: 'the path is not a folder',
	ENOTDIR: 'the path is not a folder',
	EISDIR: 'a folder is in the way',
	EIO: 'disk I/O error',
};

/** One line naming the operation, the folder and the cause (no stack, no secrets). */
export function describeStoreError(operation: string, dir: string, error: unknown): string {
	const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
	const hint = typeof code === 'string' && HINTS[code] ? ` (${HINTS[code]})` : '';
	const cause = typeof message === 'string' ? message : String(error);
	return redact(`The result store at ${dir} could not be used: ${operation} failed${hint}: ${cause}`, [], 400);
}

export class StoreFaults {
	private lastReason: string | undefined;
	private warned = false;
	private readonly warnedKeys = new Set<string>();

	constructor(private readonly warn: (message: string) => void) {}

	/** Records a fault; the first one is logged. Jobs still run: the caller reports failure, never throws. */
	fault(reason: string): void {
		this.lastReason = reason;
		if (this.warned) return;
		this.warned = true;
		this.warn(`${reason}. Jobs still run, but results are not kept and re-runs pay again.`);
	}

	/** Logs `message` once per `key` (e.g. one corrupt entry), without marking the store unhealthy. */
	noteOnce(key: string, message: string): void {
		if (this.warnedKeys.has(key)) return;
		this.warnedKeys.add(key);
		this.warn(message);
	}

	/** A later success clears the fault (the folder became writable again); the warning is not repeated. */
	recovered(): void {
		this.lastReason = undefined;
	}

	health(): StoreHealth {
		return this.lastReason === undefined ? { ok: true } : { ok: false, reason: this.lastReason };
	}
}
