/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/spend knows nothing of n8n nodes: its errors reach a node through the job (a SpendRefusal, which the glue turns into a FluxError) and the collector or serial node. */
/**
 * The spend ledger in the shared Redis: one JSON value per account (`flux-concurrent:spend:<accountId>`) and its
 * revision (`…:rev`), changed by compare-and-set in one Lua script (the new value is written only when the
 * revision is still the one read; otherwise the change is computed again on what is there now). The rules are the
 * same functions as the file's (ledgerState.ts). Every command goes through SharedRedis.run, so a Redis that is
 * gone or silent answers `{ ok: false }` within one deadline and the caller falls back; a value that cannot be read
 * as a ledger is an error (the limit fails closed).
 */
import type { RedisResult, SharedRedis } from '../redis';
import { LedgerUnusableError, type LedgerChange } from './fileLedger';
import { emptyLedger, parseLedger, sameLedger, type LedgerState } from './ledgerState';
import { OneAtATime } from './oneAtATime';

/** Prefix of the ledger's Redis keys. */
export const SPEND_REDIS_PREFIX = 'flux-concurrent:spend:';
/** Ledger keys outlive the 24-hour window by a day (every write renews them). */
const KEY_TTL_MS = 48 * 60 * 60_000;
/** Compare-and-set rounds before giving up (each one means another process changed the ledger meanwhile). */
const MAX_ROUNDS = 200;

/** KEYS: value, revision. ARGV: revision read, new value, new revision, TTL ms. Returns 1, or 0 when the revision moved. */
const COMPARE_AND_SET = `
local rev = tonumber(redis.call('GET', KEYS[2]) or '0')
if rev ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[4])
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
return 1
`;

export type LedgerRedis = Pick<SharedRedis, 'run' | 'eval' | 'where'>;

export class RedisLedger {
	private readonly queues = new OneAtATime();

	constructor(private readonly redis: LedgerRedis) {}

	/** The Redis key of an account's ledger (for messages and tests). */
	static keyOf(account: string): string {
		return SPEND_REDIS_PREFIX + account;
	}

	/** The account's ledger in Redis, or `{ ok: false }` when Redis cannot be used. */
	async read(account: string): Promise<RedisResult<LedgerState>> {
		const read = await this.readWithRev(account);
		return read.ok ? { ok: true, value: read.value.state } : read;
	}

	/**
	 * Applies `change` atomically to the account's ledger in Redis (in this process one change at a time).
	 * `{ ok: false }`: Redis could not be used (nothing was changed, or nothing is known to be); rejects with
	 * LedgerUnusableError when the stored value is not a ledger.
	 */
	async update<T>(account: string, change: LedgerChange<T>): Promise<RedisResult<{ result: T; state: LedgerState }>> {
		return await this.queues.run(account, async () => await this.compareAndSet(account, change));
	}

	private async compareAndSet<T>(account: string, change: LedgerChange<T>): Promise<RedisResult<{ result: T; state: LedgerState }>> {
		const key = RedisLedger.keyOf(account);
		for (let round = 0; round < MAX_ROUNDS; round++) {
			const read = await this.readWithRev(account);
			if (!read.ok) return read;
			const { state, rev } = read.value;
			const { state: next, result } = change(state);
			if (sameLedger(next, state)) return { ok: true, value: { result, state } };
			const written = await this.redis.eval(COMPARE_AND_SET, [key, `${key}:rev`], [rev, JSON.stringify(next), rev + 1, KEY_TTL_MS]);
			if (!written.ok) return written;
			if (Number(written.value) === 1) return { ok: true, value: { result, state: next } };
		}
		return { ok: false, reason: `the spend ledger in Redis changed ${MAX_ROUNDS} times while this process tried to write it` };
	}

	private async readWithRev(account: string): Promise<RedisResult<{ state: LedgerState; rev: number }>> {
		const key = RedisLedger.keyOf(account);
		const read = await this.redis.run(async (client) => await client.mget(key, `${key}:rev`));
		if (!read.ok) return read;
		const [text, rev] = read.value;
		try {
			return { ok: true, value: { state: text === null ? emptyLedger() : parseLedger(text), rev: Number(rev ?? 0) || 0 } };
		} catch {
			throw new LedgerUnusableError(
				`the spend ledger in Redis at ${this.redis.where} (key ${key}) is damaged (not a ledger this version can read): delete that key to start counting again from zero`,
			);
		}
	}
}
