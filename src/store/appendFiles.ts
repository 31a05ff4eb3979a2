/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/store knows nothing of n8n nodes: filesystem errors reach their caller (the journal reports them) as they came. */
/**
 * Files kept open for appending, shared by the process (at most MAX_OPEN, the least recently used idle one closed
 * first), opened to read and append: an append is one write to the kept handle (O_APPEND: atomic against the other appenders of the machine)
 * and one stat of the path, which tells whether the path still names the file written (a compaction renamed
 * another over it, a rotation or a prune removed it): if not, the handle is closed and `appendToFile` resolves
 * false, and the caller appends again (to the file the path names now). Opening and closing a file for each line
 * cost three of five filesystem calls per append, on the libuv pool every paid job's steps queue on. A handle of a
 * file replaced or removed meanwhile holds its disk space until its path is appended to again, more than MAX_OPEN
 * files are kept, or its owner closes it (closeKept: the journal's compaction and rotation do).
 */
import { constants as fsConstants, promises as fs } from 'node:fs';
import * as path from 'node:path';

import { codeOf, unless } from './fsErrors';
import { ensureStoreFolder } from './storeFolder';

interface Kept {
	handle: fs.FileHandle;
	dev: bigint;
	ino: bigint;
	/** Appends in flight on the handle (it is closed only when none is). */
	busy: number;
	/** The path names another file now, or a write failed: no more appends, closed once idle. */
	stale: boolean;
}

/** Open handles by path, least recently used first; and the opens under way. */
const kept = new Map<string, Kept>();
const opening = new Map<string, Promise<Kept>>();
const MAX_OPEN = 128;

/**
 * Appends `bytes` (one write) to `file`: true once written to the file the path names, false when the path named
 * another file by then (append again). A missing folder is made and `madeFolder` runs, then the file is opened
 * again. Rejects with the filesystem's error (a short write as ENOSPC).
 */
export async function appendToFile(file: string, bytes: Buffer, madeFolder: () => Promise<void> = async () => undefined): Promise<boolean> {
	const written = await writeKept(file, bytes, madeFolder);
	const now = await fs.stat(file, { bigint: true }).catch(() => undefined);
	if (written.isAt(now)) return true;
	written.forget();
	return false;
}

/**
 * One write of `bytes` to `file`'s kept handle, without asking whether the path still names that file: the caller
 * asks later, once for many writes (the write-ahead file's group commit): `isAt(info)`, whether `info` (a later stat
 * of the path) is the file written; if not, `forget()`: no more appends through that handle (closed once idle).
 * `create: false`: a missing file is not made (rejects ENOENT; e.g. a generation of the write-ahead file a rotation
 * removed). Rejects as appendToFile does.
 */
export async function writeKept(file: string, bytes: Buffer, madeFolder: () => Promise<void> = async () => undefined, create = true): Promise<{ isAt(info: { dev: bigint; ino: bigint } | undefined): boolean; forget(): void }> {
	const entry = await use(file, madeFolder, create);
	try {
		const { bytesWritten } = await entry.handle.write(bytes);
		if (bytesWritten !== bytes.length) throw Object.assign(new Error(`short write to ${file} (${bytesWritten} of ${bytes.length} bytes)`), { code: 'ENOSPC' });
	} catch (error) {
		entry.stale = true;
		throw error;
	} finally {
		entry.busy -= 1;
		if (entry.stale) drop(file, entry);
	}
	return { isAt: (info) => info?.ino === entry.ino && info.dev === entry.dev, forget: () => drop(file, entry) };
}

/**
 * The bytes of `file` from `offset` to its end, read through its kept handle when it is the file `id` names (device
 * and inode, as a stat of the path just found them, with the size it found: the read is sized for it); undefined
 * when no handle of that file is kept.
 */
export async function readKept(file: string, id: { dev: bigint; ino: bigint; size: bigint }, offset: number): Promise<Buffer | undefined> {
	const entry = kept.get(file);
	if (!entry || entry.stale || entry.dev !== id.dev || entry.ino !== id.ino) return undefined;
	entry.busy += 1;
	try {
		return await readToEnd(entry.handle, offset, Number(id.size) - offset);
	} finally {
		entry.busy -= 1;
		if (entry.stale) drop(file, entry);
	}
}

/** Room read past the bytes a caller expects (a file that grew meanwhile is read in one call too, most times). */
const READ_SLACK = 1024;
const CHUNK = 64 * 1024;

/**
 * What `handle`'s file holds from `offset` to its end. `expected`: the bytes a stat just found there; the first read
 * is sized for them (a journal read is a few hundred bytes: a 64 KiB buffer for each was most of its garbage).
 */
export async function readToEnd(handle: fs.FileHandle, offset: number, expected = CHUNK): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for (let position = offset, size = Math.min(Math.max(expected, 0) + READ_SLACK, CHUNK); ; size = CHUNK) {
		const chunk = Buffer.allocUnsafe(size);
		const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
		chunks.push(chunk.subarray(0, bytesRead));
		position += bytesRead;
		if (bytesRead < chunk.length) return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks); // a regular file reads short only at its end
	}
}

/** The bytes of `file` from `offset` to its end (`expected`: as readToEnd's), opened for this read; undefined when the open fails with one of `missing`. */
export async function readFile(file: string, offset = 0, expected?: number, missing: readonly string[] = ['ENOENT']): Promise<Buffer | undefined> {
	const handle = await unless(fs.open(file, 'r'), missing, undefined);
	if (!handle) return undefined;
	try {
		return await readToEnd(handle, offset, expected);
	} finally {
		await handle.close();
	}
}

/** Closes `file`'s kept handle (once its appends in flight end): the path was replaced or removed, by this process or another. */
export function closeKept(file: string): void {
	const entry = kept.get(file);
	if (entry) drop(file, entry);
}

/** The kept handle of `file` (opened for appending when there is none, or only a stale one), counted busy. */
async function use(file: string, madeFolder: () => Promise<void>, create = true): Promise<Kept> {
	for (;;) {
		const entry = kept.get(file);
		if (entry && !entry.stale) {
			entry.busy += 1;
			kept.delete(file);
			kept.set(file, entry); // most recently used
			return entry;
		}
		let pending = opening.get(file);
		if (!pending) {
			pending = open(file, madeFolder, create).finally(() => opening.delete(file));
			opening.set(file, pending);
			const made = await pending;
			if (entry) drop(file, entry);
			kept.set(file, made);
			made.busy += 1;
			// The least recently used beyond MAX_OPEN are closed (one still in use: after its last append).
			for (const [oldest, old] of kept) {
				if (kept.size <= MAX_OPEN) break;
				drop(oldest, old);
			}
			return made;
		}
		await pending.catch(() => undefined); // another caller opens it: use that one
	}
}

/** Opened to read and append (the journal's reader reads what was appended since through it: readKept); made when missing only with `create`. */
async function open(file: string, madeFolder: () => Promise<void>, create: boolean): Promise<Kept> {
	const handle = await fs.open(file, create ? 'a+' : fsConstants.O_RDWR | fsConstants.O_APPEND, 0o600).catch(async (error: unknown) => {
		if (!create || codeOf(error) !== 'ENOENT') throw error;
		await ensureStoreFolder(path.dirname(file));
		await madeFolder();
		return await fs.open(file, 'a+', 0o600);
	});
	const info = await handle.stat({ bigint: true }).catch(async (error: unknown) => {
		await handle.close().catch(() => undefined);
		throw error;
	});
	return { handle, dev: info.dev, ino: info.ino, busy: 0, stale: false };
}

/** No more appends to `entry`: forgotten, and closed once idle (else by its last append). */
function drop(file: string, entry: Kept): void {
	entry.stale = true;
	if (kept.get(file) === entry) kept.delete(file);
	if (entry.busy === 0) void entry.handle.close().catch(() => undefined);
}
