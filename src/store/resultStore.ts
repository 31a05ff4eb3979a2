/**
 * The durable result store: a job key's image bytes and their metadata in a cacache folder (atomic writes,
 * integrity checked on read, safe across processes). Faults never throw into the job path: a failed read is a
 * miss, a failed write returns false, and the store's health says why (logged once).
 */
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { logWarning } from '../logger';
import { type CacheBackend, type CacheEntry, cacacheBackend, READ_CHUNK_BYTES } from './cacheBackend';
import { codeOf } from './fsErrors';
import { ensureStoreFolder } from './storeFolder';
import { StoreFaults, describeStoreError } from './storeHealth';

const newMetaSchema = z.object({
	mimeType: z.string().min(1),
	fileExtension: z.string().min(1),
	taskId: z.string().optional(),
	width: z.number().int().positive().optional(),
	height: z.number().int().positive().optional(),
	/** Files stored with this result, each under {@link partKey}: the result is whole only with every one of them. */
	parts: z.array(z.string().min(1)).optional(),
});
const storedMetaSchema = newMetaSchema.extend({
	/** Epoch ms of the write. */
	storedAt: z.number(),
	byteLength: z.number().int().min(0),
	/** The process that wrote it (ResultStoreOptions.writer), when known. */
	writer: z.string().optional(),
});

/** What the caller gives with the bytes (any other field, e.g. a key, is dropped, never stored). */
export type NewResultMeta = z.infer<typeof newMetaSchema>;

/** The key of the file `part` stored with `key`'s result (e.g. a draft clip's `draftCache`). */
export const partKey = (key: string, part: string): string => `${key}.${part}`;

/** What the store keeps with the bytes. */
export type StoredResultMeta = z.infer<typeof storedMetaSchema>;

export interface ResultStoreOptions {
	maxBytes: number;
	ttlMs: number;
	/**
	 * Results younger than this are spared by `maxBytes` (a pool may still hold only their reference). Default 0.
	 * With `writer` set, only results another process wrote: this process's own are spared while `inUse` says so.
	 */
	spareRecentMs?: number;
	/** This process's name in the results it writes (StoredResultMeta.writer). */
	writer?: string;
	/** Results this process still needs (produced or served, not yet delivered): never evicted by `maxBytes`. */
	inUse?: (key: string) => boolean;
	/** Instead of pruning itself as it grows, report each write's bytes (the store prunes the whole folder). */
	onGrowth?: (bytes: number) => void;
	backend?: CacheBackend;
	now?: () => number;
	/** Shared with the journal so the store warns once in all; default: a new one logging via the package logger. */
	faults?: StoreFaults;
}

/** Folder of the results inside the store folder. */
export const RESULTS_SUBFOLDER = 'results';
const KEY_PREFIX = 'result:';
/** Chunk size of reads from the store (cacheBackend.ts). */
export { READ_CHUNK_BYTES };
const CORRUPT_CODES = new Set(['EINTEGRITY', 'EBADSIZE']);
const MISSING_CODES = new Set(['ENOENT', 'ENOTDIR']);
const isMissing = (error: unknown): boolean => MISSING_CODES.has(codeOf(error) as string);

export class ResultStore {
	/** The cacache folder of the results. */
	readonly cacheDir: string;
	private readonly backend: CacheBackend;
	private readonly now: () => number;
	private readonly faults: StoreFaults;
	private bytesSincePrune = 0;

	constructor(
		readonly rootDir: string,
		private readonly options: ResultStoreOptions,
	) {
		this.cacheDir = path.join(rootDir, RESULTS_SUBFOLDER);
		this.backend = options.backend ?? cacacheBackend;
		this.now = options.now ?? Date.now;
		this.faults = options.faults ?? new StoreFaults(logWarning);
	}

	/** The stored result, read whole through its integrity check, or undefined (as `check`). */
	async get(key: string): Promise<{ bytes: Buffer; meta: StoredResultMeta } | undefined> {
		const chunks: Buffer[] = [];
		const meta = await this.check(key, (chunk) => chunks.push(chunk));
		return meta && { bytes: Buffer.concat(chunks), meta };
	}

	/**
	 * The metadata of `key`'s result after reading its content through its integrity check (streamed: never whole
	 * in memory unless `onChunk` keeps it), or undefined (missing, expired, corrupt: a corrupt entry is logged once and removed).
	 */
	async check(key: string, onChunk?: (chunk: Buffer) => void): Promise<StoredResultMeta | undefined> {
		const opened = await this.openStream(key);
		if (!opened) return undefined;
		try {
			for await (const chunk of opened.stream) onChunk?.(chunk as Buffer);
		} catch (error) {
			if (CORRUPT_CODES.has(codeOf(error) as string)) return this.dropCorrupt(key, 'content failed its integrity check');
			if (isMissing(error)) return this.dropCorrupt(key, 'its content file is missing');
			return this.fault('reading a result', error);
		}
		return opened.meta;
	}

	/** True when an unexpired entry is indexed under `key` (its content is checked only by `get` and `check`). */
	async has(key: string): Promise<boolean> {
		const entry = await this.info(key);
		return entry !== undefined && !this.isExpired(entry.time);
	}

	/**
	 * Stores `bytes` under `key` (replacing an earlier result). Resolves true when stored, false when the store
	 * could not be used (logged once, see the StoreFaults' health). Throws a TypeError only for invalid `meta` (a caller bug).
	 */
	async put(key: string, bytes: Buffer, meta: NewResultMeta): Promise<boolean> {
		return await this.write('put', meta, bytes.length, (metadata, time) => this.backend.put(this.cacheDir, KEY_PREFIX + key, bytes, { metadata, time }));
	}

	/**
	 * Like `put`, for a complete file hashed while it was written (`integrity`, e.g. by the image download): the
	 * file becomes the stored content without being copied or hashed again (a hard link into the store, then the
	 * index entry), and is removed from `filePath` once stored. On false it is left where it is (the caller's).
	 */
	async adoptFile(key: string, file: { filePath: string; integrity: string; byteLength: number }, meta: NewResultMeta): Promise<boolean> {
		const stored = await this.write('adoptFile', meta, file.byteLength, (metadata, time) =>
			this.backend.adopt(this.cacheDir, KEY_PREFIX + key, file.filePath, file.integrity, { metadata, time, size: file.byteLength }),
		);
		if (stored) await rm(file.filePath, { force: true }).catch(() => undefined);
		return stored;
	}

	/** One write of `byteLength` bytes (`write` stores them with their metadata, stamped `time`), as `put` says; growth may prune. */
	private async write(method: string, meta: NewResultMeta, byteLength: number, write: (metadata: StoredResultMeta, time: number) => Promise<unknown>): Promise<boolean> {
		const parsed = newMetaSchema.safeParse(meta);
		if (!parsed.success) {
			const issue = parsed.error.issues[0];
			throw new TypeError(`ResultStore.${method}: meta field "${issue.path.join('.')}" ${issue.message}`);
		}
		const writer = this.options.writer === undefined ? {} : { writer: this.options.writer };
		try {
			await ensureStoreFolder(this.cacheDir); // a folder deleted while n8n runs is made again 0700 (cacache alone: 0755)
			const storedAt = this.now();
			await write({ ...parsed.data, storedAt, byteLength, ...writer }, storedAt);
		} catch (error) {
			this.fault('writing a result', error);
			return false;
		}
		this.faults.recovered();
		this.bytesSincePrune += byteLength;
		if (this.options.onGrowth) this.options.onGrowth(byteLength);
		else if (this.bytesSincePrune > this.options.maxBytes / 8) await this.prune();
		return true;
	}

	/**
	 * The stored result as a stream and its metadata, or undefined (missing, expired, or its content file gone:
	 * then the entry is dropped). Its integrity is checked while read (a corrupt file errors the stream) unless
	 * `verify` is false (bytes this process hashed as they arrived and stored moments ago): then only its size.
	 */
	async openStream(key: string, { verify = true }: { verify?: boolean } = {}): Promise<{ stream: Readable; meta: StoredResultMeta } | undefined> {
		const found = await this.presentEntry(key);
		if (!found) return undefined;
		const { entry, meta } = found;
		try {
			const stream = verify
				? this.backend.readStream(this.cacheDir, entry.integrity, meta.byteLength)
				: createReadStream(this.backend.contentPath(this.cacheDir, entry.integrity), { highWaterMark: READ_CHUNK_BYTES });
			return { stream, meta };
		} catch (error) {
			return this.fault('reading a result', error);
		}
	}

	/**
	 * The metadata of `key`'s result when its entry is valid and unexpired and its content file is there (its bytes
	 * are not read: they are checked when streamed), or undefined (an entry without its content is dropped).
	 */
	async present(key: string): Promise<StoredResultMeta | undefined> {
		return (await this.presentEntry(key))?.meta;
	}

	/** `key`'s valid, unexpired entry whose content file is there; a bad one is dropped (see {@link present}). */
	private async presentEntry(key: string): Promise<{ entry: CacheEntry; meta: StoredResultMeta } | undefined> {
		const entry = await this.info(key);
		if (entry === undefined) return undefined;
		const meta = storedMetaSchema.safeParse(entry.metadata);
		if (!meta.success || (entry.size !== undefined && meta.data.byteLength !== entry.size)) return this.dropCorrupt(key, 'its metadata does not match its content');
		if (this.isExpired(meta.data.storedAt)) return undefined;
		try {
			return (await this.backend.hasContent(this.cacheDir, entry.integrity)) ? { entry, meta: meta.data } : await this.dropCorrupt(key, 'its content file is missing');
		} catch (error) {
			return this.fault('reading a result', error);
		}
	}

	/** The keys of every unexpired result (one index walk: for the store's prune, not per job). */
	async keys(): Promise<Set<string>> {
		const entries = Object.values(await this.backend.ls(this.cacheDir).catch(() => ({}) as Record<string, CacheEntry>));
		return new Set(entries.filter((e) => e.key.startsWith(KEY_PREFIX) && !this.isExpired(e.time)).map((e) => e.key.slice(KEY_PREFIX.length)));
	}

	/** Removes `key`'s entry, and its content unless another key holds the same bytes. False on failure. */
	async remove(key: string): Promise<boolean> {
		try {
			const entry = await this.info(key);
			if (entry === undefined) return true;
			await this.backend.rmEntry(this.cacheDir, entry.key);
			const shared = Object.values(await this.backend.ls(this.cacheDir)).some((e) => e.integrity === entry.integrity);
			if (!shared) await this.backend.rmContent(this.cacheDir, entry.integrity);
			return true;
		} catch (error) {
			this.fault('removing a result', error);
			return false;
		}
	}

	/**
	 * Drops expired results, then the oldest until the bytes fit `maxBytes` (or `budgetBytes`: what the store
	 * folder leaves the results); content no longer referenced goes too.
	 */
	async prune(budgetBytes = this.options.maxBytes): Promise<{ removed: number; freedBytes: number; keptBytes: number } | undefined> {
		this.bytesSincePrune = 0;
		try {
			const entries = Object.values(await this.backend.ls(this.cacheDir))
				.filter((e) => e.key.startsWith(KEY_PREFIX))
				.sort((a, b) => a.time - b.time);
			const { victims, kept } = this.chooseVictims(entries, Math.max(0, budgetBytes));
			for (const victim of victims) await this.removeIfUnchanged(victim);
			const keptContents = contentSizes(kept);
			const freed = [...contentSizes(victims)].filter(([integrity]) => !keptContents.has(integrity));
			for (const [integrity] of freed) await this.backend.rmContent(this.cacheDir, integrity);
			return { removed: victims.length, freedBytes: sum(freed.map(([, size]) => size)), keptBytes: sum(keptContents.values()) };
		} catch (error) {
			if (isMissing(error)) return { removed: 0, freedBytes: 0, keptBytes: 0 };
			return this.fault('pruning', error);
		}
	}

	/** Oldest first: every expired entry, then entries not still needed until the unique bytes kept fit `maxBytes`. */
	private chooseVictims(oldestFirst: CacheEntry[], maxBytes: number): { victims: CacheEntry[]; kept: CacheEntry[] } {
		const now = this.now(); // one clock read: each entry lands in exactly one list
		const victims = oldestFirst.filter((e) => this.isExpired(e.time, now));
		const kept = oldestFirst.filter((e) => !this.isExpired(e.time, now));
		const holders = new Map<string, number>(); // integrity -> kept entries holding it
		for (const e of kept) holders.set(e.integrity, (holders.get(e.integrity) ?? 0) + 1);
		let bytes = sum(contentSizes(kept).values());
		const spared: CacheEntry[] = [];
		while (kept.length > 0 && bytes > maxBytes) {
			const oldest = kept.shift() as CacheEntry;
			if (this.spared(oldest)) {
				spared.push(oldest);
				continue;
			}
			victims.push(oldest);
			const left = (holders.get(oldest.integrity) ?? 1) - 1;
			holders.set(oldest.integrity, left);
			if (left === 0) bytes -= oldest.size ?? 0;
		}
		return { victims, kept: [...spared, ...kept] };
	}

	/** Still needed: in use by this process, or written (by another process, when writers are known) within spareRecentMs. */
	private spared(entry: CacheEntry): boolean {
		const key = entry.key.slice(KEY_PREFIX.length);
		if (this.options.inUse?.(key)) return true;
		if (entry.time < this.now() - (this.options.spareRecentMs ?? 0)) return false;
		return this.options.writer === undefined || (entry.metadata as { writer?: unknown } | undefined)?.writer !== this.options.writer;
	}

	/** Removes an entry unless another process re-wrote the key after it was listed. */
	private async removeIfUnchanged(listed: CacheEntry): Promise<void> {
		const current = await this.backend.info(this.cacheDir, listed.key);
		if (current && current.time === listed.time && current.integrity === listed.integrity) {
			await this.backend.rmEntry(this.cacheDir, listed.key);
		}
	}

	private async dropCorrupt(key: string, why: string): Promise<undefined> {
		this.faults.noteOnce(
			`corrupt:${key}`,
			`The stored result ${key.slice(0, 12)}… in ${this.rootDir} is corrupt (${why}); it is treated as missing and removed.`,
		);
		try {
			const entry = await this.info(key);
			await this.backend.rmEntry(this.cacheDir, KEY_PREFIX + key);
			if (entry) await this.backend.rmContent(this.cacheDir, entry.integrity);
		} catch (error) {
			this.fault('removing a corrupt result', error);
		}
		return undefined;
	}

	private async info(key: string): Promise<CacheEntry | undefined> {
		try {
			return (await this.backend.info(this.cacheDir, KEY_PREFIX + key)) ?? undefined;
		} catch (error) {
			return isMissing(error) ? undefined : this.fault('reading the index', error);
		}
	}

	/** Records a fault of `operation` (logged once per outage, see StoreFaults); undefined, what a failed read gives. */
	private fault(operation: string, error: unknown): undefined {
		this.faults.fault(describeStoreError(operation, this.rootDir, error));
		return undefined;
	}

	private isExpired(time: number, now = this.now()): boolean {
		return time < now - this.options.ttlMs;
	}
}

/** The size of each distinct content of `entries` (by integrity: the first entry's). */
function contentSizes(entries: readonly CacheEntry[]): Map<string, number> {
	const sizes = new Map<string, number>();
	for (const e of entries) if (!sizes.has(e.integrity)) sizes.set(e.integrity, e.size ?? 0);
	return sizes;
}

const sum = (sizes: Iterable<number>): number => [...sizes].reduce((total, size) => total + size, 0);
