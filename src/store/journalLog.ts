/**
 * The job journal's files: 256 append-only logs, `<dir>/<2 hex>.log` (an entry's bucket is the first byte of the
 * sha256 of its name). One line per entry, `<crc32, 8 hex> <json { n: name, t: time, r: revision, v: value }>`,
 * written with a newline before and after it in ONE write to a file opened O_APPEND (atomic against the other
 * appenders of this machine); of a name's lines the one with the highest revision wins (a line without one is
 * revision 0; equal revisions: the highest time, then the later line). A `durable` append is also on disk before
 * it resolves (journalAhead.ts: one write-ahead file, group commit); the others are not synced. A line whose
 * checksum or JSON is wrong is damaged (counted); the last piece of a file without its newline is an append in
 * progress and is skipped. `compact` rewrites a bucket whole and durably (src/coordination/atomicFile.ts); an
 * append that raced the rename landed in the replaced file, which its appender notices (the bucket is another
 * file now) and appends again, so no line is lost; the lines appended to the old file after the compaction read
 * it are carried over to the new one, between its `begun` and `done` marks (compactionMarks.ts: a reader waits for
 * the `done`, so it never sees a line disappear for a moment). Knows nothing of records: values are opaque JSON.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';

import { diskSync, type DiskSync, writeAtomic } from '../coordination/atomicFile';
import { appendToFile, closeKept, readFile, readToEnd } from './appendFiles';
import { BucketViews } from './bucketViews';
import { compactionMarks, isCompactionMark } from './compactionMarks';
import { AheadLog } from './journalAhead';
import { unless } from './fsErrors';

export interface LogEntry {
	name: string;
	/** Epoch ms of the writer's clock: the TTL's, and the tie-breaker among equal revisions. */
	time: number;
	/** One more than the highest revision of the name its writer had seen (absent in lines of earlier versions: 0). */
	rev?: number;
	value: unknown;
}

/** Order of two entries of one name: by revision, then (a tie, or lines of earlier versions) by time. */
function compareEntries(a: LogEntry, b: LogEntry): number {
	return (a.rev ?? 0) - (b.rev ?? 0) || a.time - b.time;
}

/** The later of two entries of one name (`b` on a tie: the later line). */
export function laterEntry(a: LogEntry | undefined, b: LogEntry | undefined): LogEntry | undefined {
	if (!a || !b) return b ?? a;
	return compareEntries(b, a) >= 0 ? b : a;
}

/** A bucket's name for an entry name: 2 hex characters. */
export function bucketOf(name: string): string {
	return createHash('sha256').update(name).digest('hex').slice(0, 2);
}

const BUCKET_FILE = /^[0-9a-f]{2}\.log$/;
/** An append that keeps landing in a replaced file (a compaction each time) gives up after this many tries. */
const APPEND_TRIES = 4;
const MISSING = ['ENOENT', 'ENOTDIR'];

const checksum = (json: string): string => (crc32(json) >>> 0).toString(16).padStart(8, '0');

function encode(entry: LogEntry): Buffer {
	const json = JSON.stringify({ n: entry.name, t: entry.time, r: entry.rev, v: entry.value });
	return Buffer.from(`\n${checksum(json)} ${json}\n`, 'utf8');
}

function decode(line: string): LogEntry | undefined {
	const json = line.slice(9);
	if (line.indexOf(' ') !== 8 || checksum(json) !== line.slice(0, 8)) return undefined;
	try {
		const { n, t, r, v } = JSON.parse(json) as { n?: unknown; t?: unknown; r?: unknown; v?: unknown };
		if (typeof n !== 'string' || typeof t !== 'number' || !Number.isFinite(t)) return undefined;
		return typeof r === 'number' && Number.isSafeInteger(r) && r >= 0 ? { name: n, time: t, rev: r, value: v } : { name: n, time: t, value: v };
	} catch {
		return undefined;
	}
}

/** The entries of a bucket's text (the last piece without its newline is an append in progress: skipped). */
export function parseBucket(text: string): { entries: LogEntry[]; damaged: number } {
	const pieces = text.split('\n');
	pieces.pop(); // after the last newline: '' or an append in progress
	const entries: LogEntry[] = [];
	let damaged = 0;
	for (const piece of pieces) {
		if (piece === '') continue;
		const entry = decode(piece);
		if (entry) entries.push(entry);
		else damaged += 1;
	}
	return { entries, damaged };
}

/**
 * An entry kept outside the logs, as JSON `{ time, rev, <valueField>: value }` (the Redis mirror calls the value
 * `metadata`, the spare folder `value`), and back (undefined for anything that is not one).
 */
export function storedEntryText(entry: LogEntry, valueField: 'value' | 'metadata'): string {
	return JSON.stringify({ time: entry.time, rev: entry.rev, [valueField]: entry.value });
}

export function parseStoredEntry(name: string, text: string | undefined, valueField: 'value' | 'metadata'): LogEntry | undefined {
	if (text === undefined) return undefined;
	try {
		const { time, rev, [valueField]: value } = JSON.parse(text) as Record<string, unknown>;
		if (typeof time !== 'number') return undefined;
		return typeof rev === 'number' ? { name, time, rev, value } : { name, time, value };
	} catch {
		return undefined;
	}
}

/** The latest entry of each name (compareEntries; a tie: the later one), in first-seen order. */
export function latestByName(entries: readonly LogEntry[]): Map<string, LogEntry> {
	const latest = new Map<string, LogEntry>();
	for (const entry of entries) latest.set(entry.name, laterEntry(latest.get(entry.name), entry) as LogEntry);
	return latest;
}

export class JournalLog {
	/** The write-ahead file of the durable appends. */
	readonly ahead: AheadLog;
	/** What was last read of each bucket (latest reads only the lines appended since). */
	private readonly views = new BucketViews();
	/** The write-ahead file's entries the buckets did not have when this log was first read (a power cut cut them). */
	private aheadRead?: Promise<Map<string, LogEntry>>;

	constructor(
		readonly dir: string,
		private readonly sync: DiskSync = diskSync,
	) {
		this.ahead = new AheadLog(dir, sync);
	}

	fileOf(bucket: string): string {
		return path.join(this.dir, `${bucket}.log`);
	}

	/**
	 * Appends `entries`, each to its bucket; resolves with the bytes written. `durable`: resolves only once the lines
	 * are on disk (the write-ahead file, one write and one sync with group commit). Rejects with the filesystem's error.
	 */
	async appendAll(entries: readonly LogEntry[], options: { durable?: boolean } = {}): Promise<number> {
		const lines = entries.map(encode);
		const bytes = lines.reduce((sum, line) => sum + line.length, 0);
		await Promise.all(entries.map(async (entry, i) => await this.appendToBucket(bucketOf(entry.name), lines[i])));
		if (!options.durable) return bytes;
		// After the buckets: a line a reader finds in the write-ahead file and not in its bucket was lost there (readAhead).
		await this.ahead.append(Buffer.concat(lines));
		return 2 * bytes;
	}

	/** Folds the write-ahead file into the buckets (synced) and starts it anew (the store's prune, under its lock). */
	async rotateAhead(): Promise<void> {
		await this.ahead.rotate(async (entries) => {
			const byBucket = new Map<string, Buffer[]>();
			for (const entry of entries) byBucket.set(bucketOf(entry.name), [...(byBucket.get(bucketOf(entry.name)) ?? []), encode(entry)]);
			for (const [bucket, lines] of byBucket) {
				await this.appendToBucket(bucket, Buffer.concat(lines));
				await this.sync(this.fileOf(bucket), 'file');
			}
		});
		this.aheadRead = undefined; // what it held is in the buckets now
	}

	private async appendToBucket(bucket: string, bytes: Buffer): Promise<void> {
		const file = this.fileOf(bucket);
		for (let tries = 1; ; tries++) {
			if (await appendToFile(file, bytes)) return; // false: the file was replaced (compacted) meanwhile
			if (tries >= APPEND_TRIES) throw Object.assign(new Error(`${file} kept being replaced while appending`), { code: 'EAGAIN' });
		}
	}

	/** The latest entry of `name` (or undefined), and how many damaged lines its bucket has. */
	async latest(name: string): Promise<{ entry?: LogEntry; damaged: number; file: string }> {
		const file = this.fileOf(bucketOf(name));
		const [{ latest, damaged }, ahead] = await Promise.all([this.views.read(file), (this.aheadRead ??= this.readAhead())]);
		return { entry: laterEntry(ahead.get(name), latest.get(name)), damaged, file };
	}

	/** Every bucket file with its size (none when the folder does not exist). */
	async buckets(): Promise<Array<{ bucket: string; bytes: number }>> {
		const names = await unless(fs.readdir(this.dir), MISSING, []);
		const found: Array<{ bucket: string; bytes: number }> = [];
		for (const name of names.filter((n) => BUCKET_FILE.test(n))) {
			const info = await fs.stat(path.join(this.dir, name)).catch(() => undefined);
			if (info?.isFile()) found.push({ bucket: name.slice(0, 2), bytes: info.size });
		}
		return found;
	}

	/** One bucket's entries (file order) and damaged lines. */
	async scan(bucket: string): Promise<{ entries: LogEntry[]; damaged: number }> {
		return parseBucket((await readFile(this.fileOf(bucket), 0, undefined, MISSING))?.toString('utf8') ?? '');
	}

	/**
	 * Rewrites a bucket with only the entries `keep` returns (given the latest entry of each name), through a temp
	 * file renamed over it; lines appended meanwhile are carried over. Only one process may compact a folder at a
	 * time (the caller holds the store's prune lock). Resolves with the size after, and the damaged lines dropped.
	 */
	async compact(bucket: string, keep: (latest: LogEntry[]) => LogEntry[]): Promise<{ after: number; damaged: number }> {
		const file = this.fileOf(bucket);
		const handle = await unless(fs.open(file, 'r'), ['ENOENT'], undefined);
		if (!handle) return { after: 0, damaged: 0 };
		try {
			const text = (await readToEnd(handle, 0)).toString('utf8');
			// Up to the last newline: a piece after it is an append in progress, read again below with what follows.
			const read = Buffer.byteLength(text.slice(0, text.lastIndexOf('\n') + 1));
			const { entries, damaged } = parseBucket(text);
			const kept = keep([...latestByName(entries.filter((entry) => !isCompactionMark(entry))).values()]);
			// Readers wait from the `begun` mark to the `done` one: until then the new file lacks the lines carried below.
			const marks = compactionMarks(Date.now());
			const out = Buffer.concat([marks.begun, ...kept].map(encode));
			// It replaces lines that may be durable: on disk before the rename.
			await writeAtomic(file, out, { durable: true, sync: this.sync });
			closeKept(file); // the replaced file's handle (its late lines are carried over below, to the new file)
			let after = out.length;
			try {
				// Lines appended to the old file after it was read: their appenders may not notice the rename (it came
				// after their check), so they are carried over here (a line carried twice is the same line twice).
				const late = (await readToEnd(handle, read)).toString('utf8');
				for (const entry of parseBucket(late).entries) if (!isCompactionMark(entry)) after += await this.appendAll([entry]);
			} finally {
				const done = encode(marks.done); // to this bucket (a mark's own name would hash to another)
				await this.appendToBucket(bucket, done);
				after += done.length;
			}
			return { after, damaged };
		} finally {
			await handle.close();
		}
	}

	/**
	 * The write-ahead entries the buckets lost (a power cut): only those, so that a line the buckets hold is read
	 * from them alone (a prune may drop it there later, and it must not come back from here).
	 */
	private async readAhead(): Promise<Map<string, LogEntry>> {
		const ahead = latestByName(await this.ahead.entries().catch(() => []));
		for (const bucket of new Set([...ahead.keys()].map(bucketOf))) {
			const { entries } = await this.scan(bucket).catch(() => ({ entries: [] as LogEntry[] }));
			for (const [name, entry] of latestByName(entries)) {
				const lost = ahead.get(name);
				if (lost && compareEntries(entry, lost) >= 0) ahead.delete(name);
			}
		}
		return ahead;
	}
}
