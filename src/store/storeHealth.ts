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

/** Error codes that mean the store cannot be written (folder, permissions, disk). */
const UNUSABLE_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EDQUOT', 'ENOTDIR', 'EEXIST', 'EISDIR', 'EIO']);

function codeOf(error: unknown): string | undefined {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === 'string' ? code : undefined;
}

/** One line naming the operation, the folder and the cause (no stack, no secrets). */
export function describeStoreError(operation: string, dir: string, error: unknown): string {
	const code = codeOf(error);
	const message = error instanceof Error ? error.message : String(error);
	const hint = code === 'ENOSPC' || code === 'EDQUOT' ? ' (disk full)' : code && UNUSABLE_CODES.has(code) ? ' (folder not writable)' : '';
	return redact(`The result store at ${dir} could not be used: ${operation} failed${hint}: ${message}`, [], 400);
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
