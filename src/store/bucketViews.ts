/**
 * What this process last read of each journal bucket, kept for its next read (at most MAX_VIEWS buckets, the least
 * recently read dropped first): the latest entry of each name, the damaged lines, and where the reading stopped.
 * Every read stats the file first (one call, instead of opening, reading, parsing and closing it whole): the same
 * file (device, inode, birth time) unchanged (size, mtime, ctime) is the view as it is; the same file grown is read
 * from a little before where the last reading stopped, and only the lines appended since are parsed (the bytes
 * before must be as they were: else it was cut or changed in place, and is read whole); anything else (replaced by
 * a compaction, cut, changed in place, gone) is read whole again. Not seen: bytes already read changed in place
 * to others of the same length without the size changing and within one tick of the file clock, or before the
 * file grew (tampering, not anything the journal's writers do). A paid job reads its key's bucket four times in a
 * few milliseconds, and a bucket holds the journal's history: reading it whole each time parsed every line.
 * A file a compaction rewrote is read again until the compaction has carried over the lines appended meanwhile
 * (its `done` mark, compactionMarks.ts; at most COMPACTION_WAIT, for a compactor that died before it).
 */
import { promises as fs, type BigIntStats } from 'node:fs';

import { backoff } from '../coordination/wakeups';
import { readFile, readKept } from './appendFiles';
import { isCompactionMark, pendingCompaction } from './compactionMarks';
import { unless } from './fsErrors';
import { laterEntry, parseBucket, type LogEntry } from './journalLog';

/** A bucket as read: the latest entry of each name (a tie: the later line) and how many lines were damaged. */
export interface BucketView {
	latest: ReadonlyMap<string, LogEntry>;
	damaged: number;
}

interface Kept {
	/** The file's identity, size and last change when it was last read (taken before the read). */
	identity: string;
	size: bigint;
	changed: string;
	/** The offset after the last complete line read: a grown file is read from here. */
	readTo: number;
	/** The last OVERLAP bytes before `readTo` (what a grown file must still hold there). */
	tail: Buffer;
	latest: Map<string, LogEntry>;
	damaged: number;
	/** A compaction that rewrote the file and is still carrying lines over (its `begun` mark read, not its `done`). */
	compacting?: string;
	/** A compaction waited for in vain (its compactor died before its `done`): not waited for again. */
	gaveUp?: string;
}

const MAX_VIEWS = 64;
const OVERLAP = 64;
const fresh = (info: BigIntStats): Kept => ({ identity: identityOf(info), size: -1n, changed: '', readTo: 0, tail: Buffer.alloc(0), latest: new Map(), damaged: 0 });
const EMPTY: BucketView = { latest: new Map(), damaged: 0 };

const identityOf = (info: BigIntStats): string => `${info.dev}:${info.ino}:${info.birthtimeNs}`;
const changedOf = (info: BigIntStats): string => `${info.mtimeNs}:${info.ctimeNs}`;
const unchanged = (kept: Kept, info: BigIntStats): boolean => kept.size === info.size && kept.identity === identityOf(info) && kept.changed === changedOf(info);

/** How long a read waits, at most, for a compaction to carry its lines over (it takes milliseconds), and how often it looks. */
const COMPACTION_WAIT = { maxMs: 2_000, minPauseMs: 2, maxPauseMs: 50 };

export class BucketViews {
	private readonly views = new Map<string, Kept>();

	/** The bucket file's view (see the file's comment); an absent file is empty. Rejects with the filesystem's error. */
	async read(file: string): Promise<BucketView> {
		const pause = backoff(COMPACTION_WAIT.minPauseMs, COMPACTION_WAIT.maxPauseMs);
		for (let waited = 0; ; ) {
			const view = await this.readOnce(file);
			if (view === undefined) return EMPTY;
			if (view.compacting === undefined || view.compacting === view.gaveUp) return view;
			if (waited >= COMPACTION_WAIT.maxMs) {
				view.gaveUp = view.compacting;
				return view;
			}
			const ms = pause();
			await new Promise((resolve) => setTimeout(resolve, ms));
			waited += ms;
		}
	}

	/** One look: the view as the file is now (undefined: there is no file). */
	private async readOnce(file: string): Promise<Kept | undefined> {
		const info = await unless(fs.stat(file, { bigint: true }), ['ENOENT', 'ENOTDIR'], undefined);
		const kept = this.views.get(file);
		this.views.delete(file);
		if (!info) return undefined;
		if (kept && unchanged(kept, info)) return this.keep(file, kept);
		const grown = kept !== undefined && kept.identity === identityOf(info) && info.size > kept.size;
		let view = grown ? kept : fresh(info);
		const from = Math.max(0, view.readTo - OVERLAP);
		const readFrom = async (offset: number) => (await readKept(file, info, offset)) ?? (await readFile(file, offset, Number(info.size) - offset));
		let bytes = await readFrom(from);
		if (bytes === undefined) return undefined; // removed meanwhile
		if (bytes.subarray(0, view.readTo - from).equals(view.tail)) bytes = bytes.subarray(view.readTo - from);
		else {
			view = fresh(info);
			bytes = await readFrom(0);
			if (bytes === undefined) return undefined;
		}
		const complete = bytes.lastIndexOf(10) + 1;
		view.tail = Buffer.concat([view.tail, bytes.subarray(0, complete)]).subarray(-OVERLAP);
		const { entries, damaged } = parseBucket(bytes.toString('utf8'));
		view.compacting = pendingCompaction(entries, view.compacting);
		for (const entry of entries) if (!isCompactionMark(entry)) view.latest.set(entry.name, laterEntry(view.latest.get(entry.name), entry) as LogEntry);
		view.damaged += damaged;
		view.readTo += complete;
		view.size = info.size;
		view.changed = changedOf(info);
		return this.keep(file, view);
	}

	private keep(file: string, view: Kept): Kept {
		this.views.set(file, view);
		for (const oldest of this.views.keys()) {
			if (this.views.size <= MAX_VIEWS) break;
			this.views.delete(oldest);
		}
		return view;
	}
}
