/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/coordination knows nothing of n8n nodes: filesystem errors reach their caller as they came. */
/**
 * A file written whole: `writeAtomic` writes to a temporary name in the same folder and renames it over the file,
 * so a reader sees the old text or the new, never half. The caller chooses durability: `durable: true` puts the
 * data on disk (fdatasync) before the rename and the rename on disk (the folder fsynced) after it, so a power cut
 * leaves the old file or the new; `durable: false` survives a killed process only. A process killed mid-write
 * leaves its temporary file behind: `sweepTemporaries` is the one sweep that removes those older than a bound.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** Makes a file's data (`file`) or a folder's entries (`folder`) durable. Injectable: tests hold or count syncs. */
export type DiskSync = (target: string, what: 'file' | 'folder') => Promise<void>;

export const diskSync: DiskSync = async (target, what) => {
	const handle = await fs.open(target, 'r');
	try {
		await (what === 'file' ? handle.datasync() : handle.sync());
	} finally {
		await handle.close();
	}
};

export interface AtomicWrite {
	/** On disk before it resolves (data synced before the rename, the folder after it). */
	durable: boolean;
	/** The sync a durable write uses (default: diskSync). */
	sync?: DiskSync;
	/** The file's permissions (default 0o600). */
	mode?: number;
	/** Run right before the rename: rejecting it leaves the file as it was (a writer that lost its lock). */
	beforeRename?: () => Promise<void>;
}

/** Replaces `file` with `data` whole; rejects with the filesystem's error (no temporary file is left then). */
export async function writeAtomic(file: string, data: string | Uint8Array, options: AtomicWrite): Promise<void> {
	const dir = path.dirname(file);
	const temporary = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`);
	const sync = options.sync ?? diskSync;
	try {
		await fs.writeFile(temporary, data, { flag: 'wx', mode: options.mode ?? 0o600 });
		if (options.durable) await sync(temporary, 'file');
		await options.beforeRename?.();
		await fs.rename(temporary, file);
	} catch (error) {
		await fs.rm(temporary, { force: true }).catch(() => undefined);
		throw error;
	}
	if (options.durable) await sync(dir, 'folder');
}

/**
 * Removes the temporary files in `dir` older than `olderThanMs` (a write takes milliseconds: an old one is a
 * killed writer's). Never throws: a folder that cannot be read or cleaned is swept another time.
 */
export async function sweepTemporaries(dir: string, olderThanMs: number, now: number = Date.now()): Promise<void> {
	const names = await fs.readdir(dir).catch(() => [] as string[]);
	for (const name of names.filter((n) => n.endsWith('.tmp'))) {
		const file = path.join(dir, name);
		const info = await fs.stat(file).catch(() => undefined);
		if (info?.isFile() && now - info.mtimeMs > olderThanMs) await fs.rm(file, { force: true }).catch(() => undefined);
	}
}
