/**
 * A named record shared by every process that sees one place (a folder, or a Redis), changed atomically: the one
 * contract the claims' and spend ledger's two sides are written on (folderRecords.ts, redisRecords.ts). A change
 * is a pure function of the text there now; the place applies it so that no other change comes between the read
 * and the write (the folder under its lock, Redis by compare-and-set). A place that cannot be used answers
 * `{ ok: false }` (Redis away or silent, within one deadline) or rejects with its error (a folder that fails):
 * the caller decides what that means (fall back, refuse).
 */

/** An answer, or why the place could not be used. */
export type Answer<T> = { ok: true; value: T } | { ok: false; reason: string };

/** One change: the record's text after it (undefined: remove it; the same text: nothing written) and what it tells. */
export type RecordChange<T> = (text: string | undefined) => { text: string | undefined; result: T };

export interface RecordStore {
	/** Where the records live, for messages (a folder, or host:port). */
	readonly where: string;
	/** The record's text now (undefined: there is none). */
	read(name: string): Promise<Answer<string | undefined>>;
	/** Applies `change` atomically with respect to every process using this place; `ttlMs` bounds the record's life where the place expires records. */
	update<T>(name: string, change: RecordChange<T>, options?: { ttlMs?: number }): Promise<Answer<T>>;
}
