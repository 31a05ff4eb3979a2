/**
 * The journal's backend when Redis is configured (queue mode): every record is written to the local
 * cacache journal (durable, in the store folder) AND to Redis (one string per key, JSON `{ time, metadata }`,
 * expiring with the journal's TTL), so every worker on that Redis sees it, also workers whose store folder is
 * not shared. Reads take the newer of the two (a record written while Redis was away is still found
 * locally; one written by another worker is found in Redis). Redis goes through SharedRedis.run (its deadline
 * and fallback): Redis failing, silent or away never fails nor holds up a journal call past one deadline; the
 * local journal carries on alone. Listing and removal (pruning) are local; Redis entries expire.
 */
import type { SharedRedis } from '../redis';
import type { CacheBackend, CacheEntry } from './cacheBackend';

/** What the shared journal needs of the shared Redis. */
export type JournalRedis = Pick<SharedRedis, 'run'>;

/** Prefix of the journal's Redis keys. */
export const JOURNAL_REDIS_PREFIX = 'flux-concurrent:journal:';

function parseEntry(key: string, text: string | null): CacheEntry | null {
	if (text === null) return null;
	try {
		const { time, metadata } = JSON.parse(text) as { time?: unknown; metadata?: unknown };
		return typeof time === 'number' ? { key, integrity: '', time, metadata } : null;
	} catch {
		return null;
	}
}

/** `local` with every index entry mirrored to Redis. */
export function sharedJournalBackend(local: CacheBackend, redis: JournalRedis, ttlMs: number): CacheBackend {
	const redisKey = (key: string) => JOURNAL_REDIS_PREFIX + key;
	const fromRedis = async (key: string): Promise<CacheEntry | null> => {
		const found = await redis.run(async (client) => await client.get(redisKey(key))).catch(() => undefined);
		return found?.ok ? parseEntry(key, found.value) : null;
	};
	return {
		...local,
		info: async (cache, key) => {
			const [mine, shared] = await Promise.all([local.info(cache, key).catch(() => null), fromRedis(key)]);
			if (mine && shared) return shared.time > mine.time ? shared : mine;
			return mine ?? shared;
		},
		put: async (cache, key, data, entry) => {
			const integrity = await local.put(cache, key, data, entry);
			const text = JSON.stringify({ time: entry.time, metadata: entry.metadata });
			await redis.run(async (client) => await client.set(redisKey(key), text, 'PX', ttlMs)).catch(() => undefined);
			return integrity;
		},
	};
}
