/**
 * The records (records.ts) in the shared Redis: one string key per record, `<prefix><name>`. A read is one GET; an
 * update reads the text, applies the change, and writes it with a single-key compare-and-set (a Lua script writes
 * only while the key still holds the text read, compared by its SHA-1; else the change is applied again to what
 * is there now, at most MAX_ROUNDS times). A new text is written with the update's `ttlMs` as its PX lease; an
 * unchanged text is not written (`put` sets a text whatever was there). Every command goes through the connection's `run`/`eval` (SharedRedis): a Redis
 * that is gone, silent or refusing answers `{ ok: false }` within one deadline, as does one that keeps changing.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

import type { Answer, RecordChange, RecordStore } from './records';

/** What the records need of the shared Redis. */
/** What the records need of the shared Redis (src/redis SharedRedis: bounded commands, `{ ok: false }` when not usable). */
export interface RecordsRedis {
	readonly where: string;
	run<T>(command: (client: Redis) => Promise<T>): Promise<Answer<T>>;
	eval(script: string, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<Answer<unknown>>;
}

/** Compare-and-set rounds before giving up (each one means another process changed the record meanwhile). */
const MAX_ROUNDS = 200;

/**
 * KEYS: the record (and, with `revisionKeys`, its `:rev` counter). ARGV: SHA-1 of the text read ('' when absent),
 * 1 to write (0 to delete), the text, PX ms ('' for none).
 */
const COMPARE_AND_SET = `
local now = redis.call('GET', KEYS[1])
if (now and redis.sha1hex(now) or '') ~= ARGV[1] then return 0 end
if ARGV[2] == '0' then redis.call('DEL', KEYS[1])
elseif ARGV[4] == '' then redis.call('SET', KEYS[1], ARGV[3])
else redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4]) end
if KEYS[2] then
  redis.call('INCR', KEYS[2])
  if ARGV[4] ~= '' then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
end
return 1
`;

const sha1 = (text: string | undefined) => (text === undefined ? '' : createHash('sha1').update(text).digest('hex'));

export class RedisRecords implements RecordStore {
	readonly where: string;

	constructor(
		private readonly redis: RecordsRedis,
		/** Put before every name to make its key. */
		private readonly prefix: string,
		/**
		 * Every write also counts up `<key>:rev`: writers of an earlier version compare that counter before they
		 * write, so while both versions share one Redis neither overwrites the other's change.
		 */
		private readonly options: { revisionKeys?: boolean } = {},
	) {
		this.where = redis.where;
	}

	/** The Redis key of a record. */
	keyOf(name: string): string {
		return this.prefix + name;
	}

	async read(name: string): Promise<Answer<string | undefined>> {
		const read = await this.redis.run(async (client) => await client.get(this.keyOf(name)));
		return read.ok ? { ok: true, value: read.value ?? undefined } : read;
	}

	/** Sets the record to `text` whatever it holds (a copy whose every writer may overwrite it, e.g. the journal's mirror), with `ttlMs` as its lease. */
	async put(name: string, text: string, ttlMs: number): Promise<Answer<unknown>> {
		return await this.redis.run(async (client) => await client.set(this.keyOf(name), text, 'PX', Math.max(1, Math.ceil(ttlMs))));
	}

	async update<T>(name: string, change: RecordChange<T>, options: { ttlMs?: number } = {}): Promise<Answer<T>> {
		const key = this.keyOf(name);
		const keys = this.options.revisionKeys ? [key, `${key}:rev`] : [key];
		for (let round = 0; round < MAX_ROUNDS; round++) {
			const read = await this.read(name);
			if (!read.ok) return read;
			const { text, result } = change(read.value);
			if (text === read.value) return { ok: true, value: result };
			const args = [sha1(read.value), text === undefined ? 0 : 1, text ?? '', options.ttlMs === undefined ? '' : Math.max(1, Math.ceil(options.ttlMs))];
			const written = await this.redis.eval(COMPARE_AND_SET, keys, args);
			if (!written.ok) return written;
			if (Number(written.value) === 1) return { ok: true, value: result };
		}
		return { ok: false, reason: `${key} in Redis at ${this.where} changed ${MAX_ROUNDS} times while this process tried to write it` };
	}
}
