/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/store knows nothing of n8n nodes: filesystem errors reach the store's health. */
/**
 * The few cacache operations the store uses, behind one seam so tests can inject faults (disk full, a broken
 * index) that a read-only chmod cannot produce when the tests run as root.
 */
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import * as cacache from 'cacache';
import * as ssri from 'ssri';
import { mkdir, rmdir } from 'node:fs/promises';
import * as path from 'node:path';
import { type CacheEntry, entryIndex, listCacheIndex } from './cacheIndexList';
import { codeOf } from './fsErrors';
import { placeContentFile } from './placeContentFile';

/**
 * The hash of new content: sha256 (SHA-NI makes it about twice as fast as sha512 here). Entries written with
 * sha512 by earlier versions still read: an entry's integrity names its own algorithm.
 */
const HASH = 'sha256';

// cacache's own content layout (content-v2/<algorithm>/<2 hex>/<2 hex>/<rest>), not re-implemented here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const contentPathOf = require('cacache/lib/content/path') as (cache: string, integrity: string) => string;

export type { CacheEntry };

export interface CacheBackend {
	/** Latest index entry of `key`, or null. */
	info(cache: string, key: string): Promise<CacheEntry | null>;
	/** Writes the content atomically, then appends the index entry (stamped `time`); resolves with the integrity. */
	put(cache: string, key: string, data: Buffer, entry: { metadata: unknown; time: number }): Promise<string>;
	/**
	 * Makes the complete file `filePath` (its bytes hashed as `integrity` by the caller) the content of `key`
	 * without copying it: hard-linked into the content folder (copied when it is on another disk or links are not
	 * supported; an existing content file of that name is replaced: see placeContentFile.ts), then the index entry
	 * appended. The caller's file is left in place. Never re-hashes: the caller vouches for `integrity` and `entry.size`.
	 */
	adopt(cache: string, key: string, filePath: string, integrity: string, entry: { metadata: unknown; time: number; size: number }): Promise<void>;
	/** The path of the content of `integrity` (it may not exist). */
	contentPath(cache: string, integrity: string): string;
	/** True when the content of `integrity` is on disk. */
	hasContent(cache: string, integrity: string): Promise<boolean>;
	/** The content of `integrity` as a stream, checked against its integrity and `size` while read. */
	readStream(cache: string, integrity: string, size: number): Readable;
	/** Every live key with its latest entry. */
	ls(cache: string): Promise<Record<string, CacheEntry>>;
	/** Removes the index bucket of `key`. */
	rmEntry(cache: string, key: string): Promise<void>;
	/** Removes content by integrity. */
	rmContent(cache: string, integrity: string): Promise<void>;
}

/*
 * cacache fans its index and content out into two levels of folders (`<2 hex>/<2 hex>/`) and never removes one:
 * after thousands of distinct jobs the empty folders alone take more disk than the store's bound (4 KiB each).
 * `removeEmptyFolders` removes a removed file's folder and its parent when they are empty; a writer that made
 * such a folder a moment before and lost it meanwhile gets ENOENT, and `againIfFolderVanished` writes once more.
 */

/** Removes `file`'s folder and the `levels - 1` folders above it, each only when empty, never `root` or above. */
export async function removeEmptyFolders(root: string, file: string, levels = 2): Promise<void> {
	let folder = path.dirname(file);
	for (let level = 0; level < levels && folder.startsWith(root + path.sep); level++, folder = path.dirname(folder)) {
		try {
			await rmdir(folder);
		} catch (error) {
			if (codeOf(error) === 'ENOENT') continue; // gone already
			return; // ENOTEMPTY / EEXIST: in use; anything else: leave it
		}
	}
}

/** Runs `write`; when it fails with ENOENT (its folder was removed as empty while it wrote), runs it once more. */
export async function againIfFolderVanished<T>(write: () => Promise<T>): Promise<T> {
	try {
		return await write();
	} catch (error) {
		if (codeOf(error) !== 'ENOENT') throw error;
		return await write();
	}
}

/** Chunk size of reads from the store: large, so n8n's binary store writes a 16 MB image in 16 writes, not 256; small beside a clip. */
export const READ_CHUNK_BYTES = 1024 * 1024;

/** The real backend: npm's cacache. */
export const cacacheBackend: CacheBackend = {
	info: (cache, key) => cacache.get.info(cache, key),
	// `time` reaches cacache's index entry (the @types omit it).
	put: (cache, key, data, entry) => againIfFolderVanished(() => cacache.put(cache, key, data, { ...entry, algorithms: [HASH] } as cacache.put.Options)),
	adopt: async (cache, key, filePath, integrity, entry) => {
		const target = contentPathOf(cache, integrity);
		await againIfFolderVanished(async () => {
			await mkdir(path.dirname(target), { recursive: true });
			await placeContentFile(filePath, target, path.join(cache, 'tmp')); // replaces a content file of the same name: it may be corrupt
		});
		// `time` and `size` reach cacache's index entry (the @types omit them).
		await againIfFolderVanished(() => cacache.index.insert(cache, key, integrity, entry as unknown as cacache.index.InsertOptions));
	},
	contentPath: (cache, integrity) => contentPathOf(cache, integrity),
	hasContent: async (cache, integrity) => Boolean(await cacache.get.hasContent(cache, integrity)),
	readStream: (cache, integrity, size) => {
		// Not cacache.get.stream: it reads content in 64 MiB chunks (a 50 MiB clip in one Buffer). 1 MiB reads, the
		// integrity (and size) checked by ssri as they stream; a mismatch errors the stream (EINTEGRITY / EBADSIZE).
		const file = createReadStream(contentPathOf(cache, integrity), { highWaterMark: READ_CHUNK_BYTES });
		const checked = ssri.integrityStream({ integrity, size });
		file.on('error', (error) => checked.emit('error', error));
		return Readable.from(file.pipe(checked));
	},
	ls: listCacheIndex, // cacache.ls, minus its dynamic import (see cacheIndexList.ts)
	rmEntry: async (cache, key) => {
		// removeFully drops the bucket instead of appending a tombstone (the @types omit the option).
		const rmEntry = cacache.rm.entry as (c: string, k: string, o: { removeFully: boolean }) => Promise<unknown>;
		await rmEntry(cache, key, { removeFully: true });
		await removeEmptyFolders(cache, entryIndex.bucketPath(cache, key));
	},
	rmContent: async (cache, integrity) => {
		await cacache.rm.content(cache, integrity);
		await removeEmptyFolders(cache, contentPathOf(cache, integrity));
	},
};
