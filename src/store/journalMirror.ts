/**
 * The journal's mirror in Redis (queue mode, or COMFLY_REDIS_URL): every entry is also one Redis string
 * (`flux-concurrent:journal:<name>`, JSON `{ time, rev, metadata }`, expiring with the journal's TTL), so every
 * worker on that Redis sees it, also workers whose store folder is not shared; the journal reads the later (by
 * revision) of its own entry and the mirrored one. Every call goes through SharedRedis.run (its deadline and fallback): Redis failing,
 * silent or away never fails nor holds up a journal call past one deadline; the local journal carries on alone.
 */
import type { SharedRedis } from '../redis';
import type { JournalMirror } from './journal';
import type { LogEntry } from './journalLog';

/** What the mirror needs of the shared Redis. */
export type JournalRedis = Pick<SharedRedis, 'run'>;

/** Prefix of the journal's Redis keys. */
export const JOURNAL_REDIS_PREFIX = 'flux-concurrent:journal:';

function parseEntry(name: string, text: string | null): LogEntry | undefined {
	if (text === null) return undefined;
	try {
		const { time, rev, metadata } = JSON.parse(text) as { time?: unknown; rev?: unknown; metadata?: unknown };
		if (typeof time !== 'number') return undefined;
		return typeof rev === 'number' ? { name, time, rev, value: metadata } : { name, time, value: metadata };
	} catch {
		return undefined;
	}
}

/** A mirror of the journal in `redis`, entries kept `ttlMs`. */
export function redisJournalMirror(redis: JournalRedis, ttlMs: number): JournalMirror {
	const redisKey = (name: string) => JOURNAL_REDIS_PREFIX + name;
	return {
		get: async (name) => {
			const found = await redis.run(async (client) => await client.get(redisKey(name))).catch(() => undefined);
			return found?.ok ? parseEntry(name, found.value) : undefined;
		},
		put: async (entry) => {
			const text = JSON.stringify({ time: entry.time, rev: entry.rev, metadata: entry.value });
			const set = await redis.run(async (client) => await client.set(redisKey(entry.name), text, 'PX', ttlMs)).catch(() => undefined);
			return set?.ok === true;
		},
	};
}
