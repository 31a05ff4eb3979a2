/**
 * Health of the store shared by the result store, the journal and the claims: a fault is logged once per outage
 * (one clear warning), and the collector's report says so while the store fails and for `recentMs` after it
 * worked again (a later small write that succeeds never hides that results of a batch were not kept). Notes
 * (a damaged or lost journal) are logged once each and reported for `recentMs` too.
 */
import { redact } from '../redact';

export interface StoreHealth {
	ok: boolean;
	/** Redacted, human-readable cause of the last fault. */
	reason?: string;
}

/** How long after the store worked again (or a note) the report still says what happened. */
export const RECENT_STORE_FAULT_MS = 10 * 60_000;

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
	private current: string | undefined;
	private last: { reason: string; at: number } | undefined;
	private lastLoggedAt = Number.NEGATIVE_INFINITY;
	private readonly warnedKeys = new Set<string>();
	private readonly notes = new Map<string, { message: string; at: number }>();

	constructor(
		private readonly warn: (message: string) => void,
		private readonly now: () => number = Date.now,
		private readonly recentMs = RECENT_STORE_FAULT_MS,
	) {}

	/** Records a fault; the first of an outage is logged. Jobs still run: the caller reports failure, never throws. */
	fault(reason: string): void {
		const at = this.now();
		const starts = this.current === undefined;
		this.current = reason;
		this.last = { reason, at };
		if (!starts || at - this.lastLoggedAt < this.recentMs) return;
		this.lastLoggedAt = at;
		this.warn(`${reason}. Jobs still run, but results are not kept and re-runs pay again.`);
	}

	/** Logs `message` once per `key` (e.g. one corrupt entry), without marking the store unhealthy. */
	noteOnce(key: string, message: string): void {
		if (this.warnedKeys.has(key)) return;
		this.warnedKeys.add(key);
		this.warn(message);
	}

	/** Like noteOnce, and the report says `message` for `recentMs` after the last time it was noted. */
	note(key: string, message: string): void {
		this.noteOnce(key, message);
		this.notes.set(key, { message, at: this.now() });
	}

	/** A later success ends the outage (the folder became writable again); the report still says it for a while. */
	recovered(): void {
		this.current = undefined;
	}

	/** Not ok while the store fails (until a later success). */
	health(): StoreHealth {
		return this.current === undefined ? { ok: true } : { ok: false, reason: this.current };
	}

	/** The report's warnings: the fault now or within `recentMs`, and recent notes. */
	warnings(): string[] {
		const now = this.now();
		const out: string[] = [];
		if (this.current !== undefined) {
			out.push(`${this.current}. Jobs still ran and were delivered, but results were not kept: a re-run pays again.`);
		} else if (this.last !== undefined && now - this.last.at < this.recentMs) {
			out.push(`${this.last.reason} (last at ${new Date(this.last.at).toISOString().slice(11, 19)} UTC). It works again since, but results of jobs that ended then were not kept: a re-run pays again for those.`);
		}
		for (const [key, note] of this.notes) {
			if (now - note.at < this.recentMs) out.push(note.message);
			else this.notes.delete(key);
		}
		return out;
	}
}
