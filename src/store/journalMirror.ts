/**
 * The journal's mirror in Redis (queue mode, or COMFLY_REDIS_URL): every entry is also one Redis record
 * (`flux-concurrent:journal:<name>`, JSON `{ time, rev, metadata }`, expiring with the journal's TTL;
 * src/coordination/redisRecords.ts), so every worker on that Redis sees it, also workers whose store folder is not
 * shared; the journal reads the later (by revision) of its own entry and the mirrored one. Redis failing, silent or
 * away never fails nor holds up a journal call past one deadline; the local journal carries on alone.
 */
import { RedisRecords, type RecordsRedis } from '../coordination/redisRecords';
import type { JournalMirror } from './journal';
import { parseStoredEntry, storedEntryText } from './journalLog';

/** Prefix of the journal's Redis keys. */
const JOURNAL_REDIS_PREFIX = 'flux-concurrent:journal:';

/** A mirror of the journal in `redis`, entries kept `ttlMs`. */
export function redisJournalMirror(redis: RecordsRedis, ttlMs: number): JournalMirror {
	const records = new RedisRecords(redis, JOURNAL_REDIS_PREFIX);
	return {
		get: async (name) => {
			const found = await records.read(name).catch(() => undefined);
			return found?.ok ? parseStoredEntry(name, found.value, 'metadata') : undefined;
		},
		put: async (entry) => (await records.put(entry.name, storedEntryText(entry, 'metadata'), ttlMs).catch(() => undefined))?.ok === true,
	};
}
