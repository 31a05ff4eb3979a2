/**
 * The journal's durable write-ahead file: the lines whose loss could make a job be paid twice (`submitting`) are
 * also appended to `<dir>/ahead-<generation>.log` and are on disk (fdatasync; the folder fsynced after the file
 * was created) before `append` resolves. Group commit: one sync covers every line appended before it started,
 * and a writer waits for the first sync that starts after its write, so concurrent submits share their syncs
 * (one file for every key, unlike the 256 buckets). Readers load it once (`entries`): after a power cut it holds
 * what the buckets, appended without a sync, may have lost. The store's prune `rotate`s it: a new generation is
 * created first, the old ones are folded into the buckets (synced) and carried over past what was folded, then
 * removed; a writer whose sync finds a newer generation appends its line there again, so no synced line is lost.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

import { diskSync, type DiskSync } from '../coordination/atomicFile';
import { closeKept, readFile, writeKept } from './appendFiles';
import { codeOf, unless } from './fsErrors';
import { parseBucket, type LogEntry } from './journalLog';

const GENERATION = /^ahead-(\d{1,15})\.log$/;
const MISSING = ['ENOENT', 'ENOTDIR'];

/** Syncs of one target shared by concurrent writers: a call resolves with the outcome of a sync that started after it. */
function groupSync<T>(syncOnce: () => Promise<T>): () => Promise<T> {
	let running: Promise<T> | undefined;
	let queued: Promise<T> | undefined;
	const start = (): Promise<T> => {
		const run: Promise<T> = syncOnce().finally(() => {
			if (running === run) running = undefined;
		});
		running = run;
		return run;
	};
	return () => {
		if (!running) return start();
		queued ??= running.catch(() => undefined).then(() => {
			queued = undefined;
			return start();
		});
		return queued;
	};
}

export class AheadLog {
	/** The generation this process appends to (the newest it has seen). */
	private current?: number;
	/** Per generation, its syncs: then the file its path names, and whether a rotation began (the next generation exists). */
	private readonly groups = new Map<number, () => Promise<{ file?: { dev: bigint; ino: bigint }; rotated: boolean }>>();
	private readonly folderSync = groupSync(() => this.sync(this.dir, 'folder'));

	constructor(
		readonly dir: string,
		private readonly sync: DiskSync = diskSync,
	) {}

	/** Appends `bytes` (whole lines) and resolves once they are on disk. Rejects with the filesystem's error. */
	async append(bytes: Buffer): Promise<void> {
		for (;;) {
			this.current ??= await this.newest();
			// None yet (a new folder, or one deleted): generation 0 is made; an existing generation is never made again.
			const generation = this.current ?? 0;
			const written = await this.appendTo(generation, bytes, this.current === undefined);
			if (written === 'missing') {
				this.current = await this.newest(); // rotated away (or the folder deleted) since this process last wrote
				continue;
			}
			// A rotation began (it makes the next generation first): the line may not be carried over, so it goes to the
			// newest generation too; so does a line whose file was removed meanwhile (rotated away, or with the folder).
			if (written.kept && !written.rotated) return;
			this.current = Math.max((await this.newest()) ?? 0, generation + (written.kept ? 1 : 0));
			if (this.current !== generation) closeKept(this.fileOf(generation)); // rotated away: its space is freed once closed
		}
	}

	/** Every line of every generation (read once by a journal when it opens). */
	async entries(): Promise<LogEntry[]> {
		const entries: LogEntry[] = [];
		for (const generation of await this.generations()) entries.push(...parseBucket((await readBytes(this.fileOf(generation))).toString('utf8')).entries);
		return entries;
	}

	/** The bytes of every generation. */
	async bytes(): Promise<number> {
		let sum = 0;
		for (const generation of await this.generations()) sum += (await fs.stat(this.fileOf(generation)).catch(() => undefined))?.size ?? 0;
		return sum;
	}

	/**
	 * Starts a new generation, hands the old ones' lines to `fold` (which writes them into the buckets durably),
	 * carries over what was appended meanwhile, then removes the old generations. One process at a time (the
	 * caller holds the store's prune lock).
	 */
	async rotate(fold: (entries: LogEntry[]) => Promise<void>): Promise<void> {
		const old = await this.generations();
		if (old.length === 0) return;
		const newest = old[old.length - 1];
		const next = this.fileOf(newest + 1);
		await unless(fs.writeFile(next, '', { flag: 'wx', mode: 0o600 }), ['EEXIST'], undefined);
		await this.sync(this.dir, 'folder');
		this.current = Math.max(this.current ?? 0, newest + 1);
		const texts = await Promise.all(old.map(async (generation) => await readBytes(this.fileOf(generation))));
		await fold(texts.flatMap((bytes) => parseBucket(bytes.toString('utf8')).entries));
		// Complete lines appended to the newest old generation after it was read (a line still being written is
		// appended again by its writer, who finds the new generation after its sync).
		const read = texts[texts.length - 1].lastIndexOf(10) + 1;
		const late = (await readBytes(this.fileOf(newest))).subarray(read);
		const complete = late.subarray(0, late.lastIndexOf(10) + 1);
		if (complete.length > 0) await this.append(complete);
		for (const generation of old) {
			await fs.rm(this.fileOf(generation), { force: true });
			closeKept(this.fileOf(generation));
		}
	}

	private fileOf(generation: number): string {
		return path.join(this.dir, `ahead-${generation}.log`);
	}

	private async generations(): Promise<number[]> {
		const names = await unless(fs.readdir(this.dir), ['ENOENT'], []);
		return names
			.map((name) => GENERATION.exec(name)?.[1])
			.filter((n): n is string => n !== undefined)
			.map(Number)
			.sort((a, b) => a - b);
	}

	/**
	 * One write of `bytes` to the generation's file, then the group's sync (and, when `create` made the file, the
	 * folder's); `kept`: the path still named the file written once it was synced (false: removed by a rotation, or
	 * with the folder); `rotated`: a rotation had begun by then (both asked once per sync, for all the writes it
	 * covers). 'missing': the file is gone and was not made (a generation is made only when none exists: one a
	 * rotation removed, made again, would be a file no rotation folds).
	 */
	private async appendTo(generation: number, bytes: Buffer, create: boolean): Promise<{ kept: boolean; rotated: boolean } | 'missing'> {
		const file = this.fileOf(generation);
		const written = await writeKept(file, bytes, () => this.sync(path.dirname(this.dir), 'folder'), create).catch((error: unknown) => {
			if (!create && MISSING.includes(codeOf(error) as string)) return 'missing' as const;
			throw error;
		});
		if (written === 'missing') return written;
		const after = await this.groupOf(generation)();
		const kept = written.isAt(after.file);
		if (!kept) written.forget();
		else if (create) await this.folderSync();
		return { kept, rotated: after.rotated };
	}

	/** The newest generation in the folder, or undefined when there is none. */
	private async newest(): Promise<number | undefined> {
		return (await this.generations()).at(-1);
	}

	/** The sync group of a generation: its file synced, then what its path names and whether the next generation exists. */
	private groupOf(generation: number) {
		let group = this.groups.get(generation);
		if (!group) {
			const file = this.fileOf(generation);
			group = groupSync(async () => {
				const synced = await unless(this.sync(file, 'file').then(() => true), MISSING, false);
				const [now, next] = await Promise.all([synced ? fs.stat(file, { bigint: true }).catch(() => undefined) : undefined, fs.stat(this.fileOf(generation + 1)).then(() => true, () => false)]);
				return { file: now, rotated: next };
			});
			this.groups.set(generation, group);
		}
		return group;
	}
}

const readBytes = async (file: string): Promise<Buffer> => (await readFile(file)) ?? Buffer.alloc(0);
