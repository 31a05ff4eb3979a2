/**
 * The journal's mirror in Redis (queue mode, or COMFLY_REDIS_URL): every entry is also one Redis record
 * (`flux-concurrent:journal:<name>`, JSON `{ time, rev, metadata }`, expiring with the journal's TTL;
 * src/coordination/redisRecords.ts), so every worker on that Redis sees it, also workers whose store folder is not
 * shared; the journal reads the later (by revision) of its own entry and the mirrored one. Redis failing, silent or
 * away never fails nor holds up a journal call past one deadline; the local journal carries on alone.
 */
import { RedisRecords, type RecordsRedis } from '../coordination/redisRecords';
import type { JournalMirror } from './journal';
import type { LogEntry } from './journalLog';

/** Prefix of the journal's Redis keys. */
export const JOURNAL_REDIS_PREFIX = 'flux-concurrent:journal:';

function parseEntry(name: string, text: string | undefined): LogEntry | undefined {
	if (text === undefined) return undefined;
	try {
		const { time, rev, metadata } = JSON.parse(text) as { time?: unknown; rev?: unknown; metadata?: unknown };
		if (typeof time !== 'number') return undefined;
		return typeof rev === 'number' ? { name, time, rev, value: metadata } : { name, time, value: metadata };
	} catch {
		return undefined;
	}
}

/** A mirror of the journal in `redis`, entries kept `ttlMs`. */
export function redisJournalMirror(redis: RecordsRedis, ttlMs: number): JournalMirror {
	const records = new RedisRecords(redis, JOURNAL_REDIS_PREFIX);
	return {
		get: async (name) => {
			const found = await records.read(name).catch(() => undefined);
			return found?.ok ? parseEntry(name, found.value) : undefined;
		},
		put: async (entry) => {
			const text = JSON.stringify({ time: entry.time, rev: entry.rev, metadata: entry.value });
			return (await records.put(entry.name, text, ttlMs).catch(() => undefined))?.ok === true;
		},
	};
}
