/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/spend knows nothing of n8n nodes: its errors reach a node through the job (a SpendRefusal, which the glue turns into a FluxError) and the collector or serial node. */
/**
 * The spend ledger in the store folder: one JSON file per account (`<store>/spend/<accountId>.json`), changed only
 * under a lock that every process on that folder honours (proper-lockfile: a lock folder whose age tells a dead
 * holder's lock from a live one), written whole to a temporary file, flushed and renamed over the old one (a
 * reader never sees half a file, a crash never leaves one). In one process the changes of an account run one at a
 * time. A file that cannot be read as a ledger, or a folder that cannot be written, is an error the caller turns
 * into a refusal (the limit fails closed; it never silently lifts).
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { lock } from 'proper-lockfile';

import { ensureStoreFolder } from '../store/storeFolder';
import { emptyLedger, parseLedger, type LedgerState } from './ledgerState';
import { OneAtATime } from './oneAtATime';

/** A lock older than this (ms) without a refresh is a dead process's and is taken over. */
const LOCK_STALE_MS = 5000;
/** How often a held lock is refreshed (ms). */
const LOCK_REFRESH_MS = 1000;
/**
 * Waiting for the lock: retries this far apart at most, about 30 s in all: longer than a dead holder's lock lives,
 * and than a few holders each waiting one Redis deadline under it (spendLedger.ts; once one has, the others of the
 * machine skip Redis for a while: spendLedger.ts).
 */
const LOCK_RETRY = { retries: 750, factor: 1.2, minTimeout: 5, maxTimeout: 40, randomize: true } as const;

/** A temporary file older than this is what a process killed while writing left behind (a write takes milliseconds). */
const TEMPORARY_KEPT_MS = 60 * 60_000;

/** The ledger could not be used: damaged, or its folder could not be written or locked. Limits fail closed. */
/** The `code` of a LedgerUnusableError (matched by code: another copy of the package may have thrown it). */
export const LEDGER_UNUSABLE = 'LEDGER_UNUSABLE';

export class LedgerUnusableError extends Error {
	override readonly name = 'LedgerUnusableError';
	readonly code = LEDGER_UNUSABLE;

	/** `lockBusy`: the folder works, but live processes held the lock for the whole wait. */
	constructor(
		message: string,
		readonly lockBusy = false,
	) {
		super(message);
	}
}

/** What one change of the ledger does: the new state (the same object: nothing to write) and what it tells. */
export type LedgerChange<T> = (state: LedgerState) => { state: LedgerState; result: T };

/** The account's file while its lock is held: read it (rejects with LedgerUnusableError when damaged), write it whole. */
export interface LockedLedger {
	read(): Promise<LedgerState>;
	write(state: LedgerState): Promise<void>;
	/** `change` applied to `state` (default: the file as read), written when it changed anything. */
	apply<T>(change: LedgerChange<T>, state?: LedgerState): Promise<T>;
}

export class FileLedger {
	private readonly queues = new OneAtATime();
	private folderReady?: Promise<void>;

	constructor(readonly dir: string) {}

	/** The account's ledger file. */
	fileOf(account: string): string {
		return path.join(this.dir, `${account}.json`);
	}

	/** The account's ledger as it is now (no lock: files are replaced whole). */
	async read(account: string): Promise<LedgerState> {
		return await this.readFile(this.fileOf(account));
	}

	/** Applies `change` to the account's ledger under the folder's lock, one change at a time in this process. */
	async update<T>(account: string, change: LedgerChange<T>): Promise<T> {
		return await this.locked(account, async (ledger) => await ledger.apply(change));
	}

	/**
	 * Runs `work` holding the account's lock (the same one `update` takes), one at a time in this process: `work`
	 * may take its time (a Redis call; the lock is refreshed meanwhile) and reads and writes the file itself.
	 */
	async locked<T>(account: string, work: (ledger: LockedLedger) => Promise<T>): Promise<T> {
		return await this.queues.run(account, async () => {
			const file = this.fileOf(account);
			const release = await this.lock(file);
			try {
				const read = async () => await this.readFile(file);
				const write = async (state: LedgerState) => await this.write(file, state);
				return await work({
					read,
					write,
					apply: async (change, state) => {
						const current = state ?? (await read());
						const { state: next, result } = change(current);
						if (next !== current) await write(next);
						return result;
					},
				});
			} finally {
				await release().catch(() => undefined);
			}
		});
	}

	private async lock(file: string): Promise<() => Promise<void>> {
		await this.ensureFolder();
		// Deleted since (the store folder cleaned by hand): made again, so counting restarts from zero as for a removed
		// ledger file, instead of every lock failing ENOENT after the whole retry budget and every job being refused.
		const isFolder = await fs.stat(this.dir).then(
			(info) => info.isDirectory(),
			() => false,
		);
		if (!isFolder) {
			this.folderReady = undefined;
			await this.ensureFolder();
		}
		try {
			return await lock(file, {
				realpath: false,
				lockfilePath: `${file}.lock`,
				stale: LOCK_STALE_MS,
				update: LOCK_REFRESH_MS,
				retries: LOCK_RETRY,
				// A lock taken over while held (this process stalled past the stale time): the next change relocks.
				onCompromised: () => undefined,
			});
		} catch (error) {
			const busy = (error as { code?: unknown } | null)?.code === 'ELOCKED';
			throw new LedgerUnusableError(`the spend ledger ${file} could not be locked (${reasonOf(error)})`, busy);
		}
	}

	private async ensureFolder(): Promise<void> {
		this.folderReady ??= ensureStoreFolder(this.dir).then(
			() => void this.sweepTemporaries(),
			(error: unknown) => {
				this.folderReady = undefined;
				throw new LedgerUnusableError(`the spend ledger folder ${this.dir} could not be created (${reasonOf(error)})`);
			},
		);
		await this.folderReady;
	}

	/** Removes temporary files a killed process left (once per process; never throws). */
	private async sweepTemporaries(): Promise<void> {
		try {
			for (const name of await fs.readdir(this.dir)) {
				if (!name.endsWith('.tmp')) continue;
				const file = path.join(this.dir, name);
				const info = await fs.stat(file).catch(() => undefined);
				if (info && Date.now() - info.mtimeMs > TEMPORARY_KEPT_MS) await fs.rm(file, { force: true });
			}
		} catch {
			// nothing to sweep
		}
	}

	private async readFile(file: string): Promise<LedgerState> {
		let text: string;
		try {
			text = await fs.readFile(file, 'utf8');
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyLedger();
			throw new LedgerUnusableError(`the spend ledger ${file} could not be read (${reasonOf(error)})`);
		}
		try {
			return parseLedger(text);
		} catch {
			throw new LedgerUnusableError(`the spend ledger ${file} is damaged (not a ledger this version can read): remove it to start counting again from zero`);
		}
	}

	/** Writes the whole ledger to a new file, flushes it and renames it over the old one. */
	private async write(file: string, state: LedgerState): Promise<void> {
		const temporary = `${file}.${process.pid}.${randomUUID()}.tmp`;
		try {
			const handle = await fs.open(temporary, 'wx', 0o600);
			try {
				await handle.writeFile(JSON.stringify(state), 'utf8');
				await handle.sync();
			} finally {
				await handle.close();
			}
			await fs.rename(temporary, file);
		} catch (error) {
			await fs.rm(temporary, { force: true }).catch(() => undefined);
			throw new LedgerUnusableError(`the spend ledger ${file} could not be written (${reasonOf(error)})`);
		}
	}
}

function reasonOf(error: unknown): string {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
}
