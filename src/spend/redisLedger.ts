/**
 * The spend ledger in the shared Redis: one JSON value per account (`flux-concurrent:spend:<accountId>`), a record
 * of src/coordination/redisRecords.ts (changed by single-key compare-and-set). A ledger written by earlier versions
 * (the same value) is read as it is, and every write still counts up the `…:rev` key those versions compare, so
 * while old and new processes share one Redis (a rolling upgrade) neither overwrites the other's change and the
 * limit holds. A value that cannot be read as a ledger is an error (the limit fails closed).
 */
import { RedisRecords, type RecordsRedis } from '../coordination/redisRecords';
import type { Answer } from '../coordination/records';
import { parseLedger, type LedgerChange } from './fileLedger';
import { sameLedger, type LedgerState } from './ledgerState';

/** Prefix of the ledger's Redis keys. */
export const SPEND_REDIS_PREFIX = 'flux-concurrent:spend:';
/** Ledger keys outlive the 24-hour window by a day (every write renews them). */
const KEY_TTL_MS = 48 * 60 * 60_000;

export class RedisLedger {
	private readonly records: RedisRecords;

	constructor(redis: RecordsRedis) {
		this.records = new RedisRecords(redis, SPEND_REDIS_PREFIX, { revisionKeys: true });
	}

	/** The Redis key of an account's ledger (for messages and tests). */
	static keyOf(account: string): string {
		return SPEND_REDIS_PREFIX + account;
	}

	/** The account's ledger in Redis, or `{ ok: false }` when Redis cannot be used. */
	async read(account: string): Promise<Answer<LedgerState>> {
		const read = await this.records.read(account);
		return read.ok ? { ok: true, value: this.parse(account, read.value) } : read;
	}

	/**
	 * Applies `change` atomically to the account's ledger in Redis. `{ ok: false }`: Redis could not be used
	 * (nothing was changed, or nothing is known to be); rejects with LedgerUnusableError when the stored value is
	 * not a ledger.
	 */
	async update<T>(account: string, change: LedgerChange<T>): Promise<Answer<{ result: T; state: LedgerState }>> {
		return await this.records.update(
			account,
			(text) => {
				const state = this.parse(account, text);
				const { state: next, result } = change(state);
				return sameLedger(next, state) ? { text, result: { result, state } } : { text: JSON.stringify(next), result: { result, state: next } };
			},
			{ ttlMs: KEY_TTL_MS },
		);
	}

	private parse(account: string, text: string | undefined): LedgerState {
		return parseLedger(text, `in Redis at ${this.records.where} (key ${RedisLedger.keyOf(account)})`, 'delete that key');
	}
}
