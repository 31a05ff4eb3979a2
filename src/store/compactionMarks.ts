/**
 * The marks a journal compaction leaves in the bucket it rewrites, so that no reader sees the bucket lose a line.
 * A compaction renames its rewritten bucket over the old one, then carries over the lines appended to the old one
 * after it read it: in between, the bucket lacks lines whose appenders were already done (a reader there would see a
 * key's record go back a state, e.g. a `submitting` of a job that then died hidden behind an older record). So the
 * rewritten bucket begins with a `begun` mark and the compaction appends a `done` mark with the same id once it has
 * carried everything over; a reader that finds a `begun` without its `done` reads the bucket again until the `done`
 * is there (bucketViews.ts). Marks are lines like any other (journalLog.ts), under a name no record has: earlier
 * versions read them as an entry nobody asks for.
 */
import { randomUUID } from 'node:crypto';

import type { LogEntry } from './journalLog';

const MARK_NAME = '\u0000compaction';

/** A new compaction's id and its two marks. */
export function compactionMarks(now: number): { begun: LogEntry; done: LogEntry } {
	const id = randomUUID();
	return { begun: { name: MARK_NAME, time: now, rev: 0, value: { id } }, done: { name: MARK_NAME, time: now, rev: 0, value: { id, done: true } } };
}

export const isCompactionMark = (entry: LogEntry): boolean => entry.name === MARK_NAME;

/** The compaction still carrying lines over after reading `entries` (in file order), given the one pending before them. */
export function pendingCompaction(entries: readonly LogEntry[], pending: string | undefined): string | undefined {
	for (const entry of entries) {
		if (!isCompactionMark(entry)) continue;
		const { id, done } = (entry.value ?? {}) as { id?: unknown; done?: unknown };
		if (typeof id !== 'string') continue;
		if (done !== true) pending = id;
		else if (id === pending) pending = undefined;
	}
	return pending;
}
