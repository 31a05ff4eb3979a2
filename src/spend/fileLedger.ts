/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/spend knows nothing of n8n nodes: its errors reach a node through the job (a SpendRefusal, which the glue turns into a FluxError) and the collector or serial node. */
/**
 * The spend ledger in the store folder: one JSON file per account (`<store>/spend/<accountId>.json`), a durable
 * record of src/coordination/folderRecords.ts (changed under the account's folder lock, written whole). A file that
 * cannot be read as a ledger, a folder that cannot be written, a lock taken over before the change landed or one
 * live processes held all the wait (`lockBusy`) is an error the caller turns into a refusal (the limit fails
 * closed; it never silently lifts).
 */
import { FolderRecordError, FolderRecords } from '../coordination/folderRecords';
import { ensureStoreFolder } from '../store/storeFolder';
import { emptyLedger, ledgerStateSchema, type LedgerState } from './ledgerState';

/** The `code` of a LedgerUnusableError (matched by code: another copy of the package may have thrown it). */
export const LEDGER_UNUSABLE = 'LEDGER_UNUSABLE';

/** The ledger could not be used: damaged, or its folder could not be written or locked. Limits fail closed. */
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
	private readonly records: FolderRecords;

	constructor(readonly dir: string) {
		// Waiting for the lock: about 30 s, longer than a dead holder's lock lives, and than a few holders each waiting
		// one Redis deadline under it (spendLedger.ts; once one has, the others of the machine skip Redis for a while).
		this.records = new FolderRecords(dir, { durable: true, waitMs: 30_000, makeFolder: ensureStoreFolder });
	}

	/** The account's ledger file. */
	fileOf(account: string): string {
		return this.records.fileOf(`${account}.json`);
	}

	/** The account's ledger as it is now (no lock: files are replaced whole). */
	async read(account: string): Promise<LedgerState> {
		const answer = await this.records.read(`${account}.json`).catch(unusable);
		return parseLedger(answer.ok ? answer.value : undefined, this.fileOf(account), 'remove it');
	}

	/** Runs `work` holding the account's lock (folderRecords' `locked`): it reads and writes the file itself (`apply`: one change). */
	async locked<T>(account: string, work: (ledger: LockedLedger) => Promise<T>): Promise<T> {
		return await this.records
			.locked(`${account}.json`, async (record) => {
				const read = async () => parseLedger(await record.read().catch(unusable), this.fileOf(account), 'remove it');
				const write = async (state: LedgerState) => await record.write(JSON.stringify(state)).catch(unusable);
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
			})
			.catch(unusable);
	}
}

/** The ledger as stored (JSON text; none: empty); throws LedgerUnusableError when it is not one (the caller fails closed). */
export function parseLedger(text: string | undefined, where: string, remedy: string): LedgerState {
	try {
		return text === undefined ? emptyLedger() : ledgerStateSchema.parse(JSON.parse(text));
	} catch {
		throw new LedgerUnusableError(`the spend ledger ${where} is damaged (not a ledger this version can read): ${remedy} to start counting again from zero`);
	}
}

const STEP = { lock: 'could not be locked', read: 'could not be read', write: 'could not be written' } as const;

/** A folder store's failure as the ledger's (its message names the file and the step); any other error as it came. */
function unusable(error: unknown): never {
	if (!(error instanceof FolderRecordError)) throw error;
	if (error.step === 'folder') throw new LedgerUnusableError(`the spend ledger folder ${error.file} could not be created (${error.code})`);
	throw new LedgerUnusableError(`the spend ledger ${error.file} ${STEP[error.step]} (${error.code})`, error.busy);
}
