/**
 * A RecordStore (records.ts) over a folder: one file per record name, `<dir>/<name>`. A read reads the file (none:
 * undefined); an update runs under the record's folder lock (folderLock.ts, `<dir>/<name>.lock`): read, change,
 * then write whole (atomicFile.ts; durable or not, as the store was made) or remove, nothing written when the text
 * is the same. `locked` holds the same lock around work of the caller's (a Redis call between the read and the
 * write). In one process the updates of a name run one at a time, in order. A missing folder is made (again);
 * temporary files killed writers left are swept once per store. A folder that fails rejects with a
 * FolderRecordError naming the step; a lock that live processes held for the whole wait is `busy` (ELOCKED), and so
 * is one taken over while held (this process silent past the lapse): checked right before the write lands, nothing
 * is then written (the state read may be stale: another process may have changed it since).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

import { diskSync, sweepTemporaries, writeAtomic, type DiskSync } from './atomicFile';
import { FolderLock, type HeldLock } from './folderLock';
import type { Answer, RecordChange, RecordStore } from './records';

export interface FolderRecordsOptions {
	/** Every write on disk before it resolves (atomicFile's durable write). */
	durable: boolean;
	sync?: DiskSync;
	/** The most an update waits for the lock (default 30 s). */
	waitMs?: number;
	/** Makes the folder when it is missing (default: mkdir, mode 0700). */
	makeFolder?: (dir: string) => Promise<void>;
}

/** A step of a folder store that failed, with the filesystem's error (or ELOCKED: held by live processes all the wait). */
export class FolderRecordError extends Error {
	override readonly name = 'FolderRecordError';
	readonly code: string;

	constructor(
		readonly step: 'folder' | 'lock' | 'read' | 'write',
		/** The record's file (the folder for `folder`). */
		readonly file: string,
		cause: unknown,
		readonly busy = false,
	) {
		const code = (cause as { code?: unknown } | null)?.code;
		const reason = typeof code === 'string' ? code : cause instanceof Error ? cause.message : String(cause);
		super(`${file}: ${step} failed (${reason})`, { cause });
		this.code = reason;
	}
}

/** A record while its lock is held: read it, write it whole (undefined: remove it). */
export interface LockedRecord {
	read(): Promise<string | undefined>;
	write(text: string | undefined): Promise<void>;
}

const TEMPORARY_KEPT_MS = 60 * 60_000;

export class FolderRecords implements RecordStore {
	private readonly folderLock: FolderLock;
	private readonly tails = new Map<string, Promise<unknown>>();
	private swept = false;

	constructor(
		readonly where: string,
		private readonly options: FolderRecordsOptions,
	) {
		const make = options.makeFolder ?? (async (dir: string) => void (await fs.mkdir(dir, { recursive: true, mode: 0o700 })));
		const makeFolder = async (dir: string) => await make(dir).catch((error: unknown) => Promise.reject(new FolderRecordError('folder', dir, error)));
		// A lock is held for one change (milliseconds, or one Redis call): touched every second, an unseen owner's dead after 5 s.
		this.folderLock = new FolderLock({ lapseMs: 5000, touchMs: 1000, makeFolder });
	}

	/** The file of a record. */
	fileOf(name: string): string {
		return path.join(this.where, name);
	}

	async read(name: string): Promise<Answer<string | undefined>> {
		return { ok: true, value: await this.readFile(this.fileOf(name)) };
	}

	async update<T>(name: string, change: RecordChange<T>): Promise<Answer<T>> {
		const value = await this.locked(name, async (record) => {
			const text = await record.read();
			const next = change(text);
			if (next.text !== text) await record.write(next.text);
			return next.result;
		});
		return { ok: true, value };
	}

	/** Runs `work` holding the record's lock (the one `update` takes), after this process's earlier work on the name. */
	locked<T>(name: string, work: (record: LockedRecord) => Promise<T>): Promise<T> {
		const run = (this.tails.get(name) ?? Promise.resolve()).then(async () => await this.lockedNow(this.fileOf(name), work));
		const tail = run.catch(() => undefined);
		this.tails.set(name, tail);
		void tail.then(() => this.tails.get(name) === tail && this.tails.delete(name));
		return run;
	}

	private async lockedNow<T>(file: string, work: (record: LockedRecord) => Promise<T>): Promise<T> {
		const held = await this.folderLock.lock(`${file}.lock`, this.options.waitMs ?? 30_000).catch((error: unknown) => {
			throw error instanceof FolderRecordError ? error : new FolderRecordError('lock', file, error);
		});
		if (!held) throw lockedError(file, 'held by live processes');
		if (!this.swept) void sweepTemporaries(this.where, TEMPORARY_KEPT_MS);
		this.swept = true;
		try {
			return await work({ read: async () => await this.readFile(file), write: async (text) => await this.write(file, text, held) });
		} finally {
			await held.release();
		}
	}

	private async readFile(file: string): Promise<string | undefined> {
		return await fs.readFile(file, 'utf8').catch((error: unknown) => {
			if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
			throw new FolderRecordError('read', file, error);
		});
	}

	private async write(file: string, text: string | undefined, held: HeldLock): Promise<void> {
		const { durable, sync = diskSync } = this.options;
		const stillHeld = async () => {
			if (!(await held.stillHeld())) throw lockedError(file, 'taken over by another process');
		};
		try {
			if (text !== undefined) return await writeAtomic(file, text, { durable, sync, beforeRename: stillHeld });
			await stillHeld();
			await fs.rm(file, { force: true });
			if (durable) await sync(this.where, 'folder');
		} catch (error) {
			throw error instanceof FolderRecordError ? error : new FolderRecordError('write', file, error);
		}
	}
}

/** The lock of `file` not held (by live processes all the wait, or lost): `busy`, as callers refuse then. */
function lockedError(file: string, why: string): FolderRecordError {
	return new FolderRecordError('lock', file, Object.assign(new Error(why), { code: 'ELOCKED' }), true);
}
