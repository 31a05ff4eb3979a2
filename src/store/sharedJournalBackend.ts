/**
 * The journal's backend when Redis is configured (queue mode): every record is written to the local
 * cacache journal (durable, in the store folder) AND to Redis (one string per key, JSON `{ time, metadata }`,
 * expiring with the journal's TTL), so every worker on that Redis sees it, also workers whose store folder is
 * not shared. Reads take the newer of the two (a record written while Redis was away is still found
 * locally; one written by another worker is found in Redis). Redis failing never fails a journal call:
 * the local journal carries on alone. Listing and removal (pruning) are local; Redis entries expire.
 */
import type { CacheBackend, CacheEntry } from './cacheBackend';

/** The few Redis commands the shared journal uses (ioredis's signatures). */
export interface JournalRedis {
	get(key: string): Promise<string | null>;
	set(key: string, value: string, px: 'PX', ms: number): Promise<unknown>;
}

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

/** `local` with every index entry mirrored to Redis; `usable()` says whether Redis may be tried now (it may wait for a first connection). */
export function sharedJournalBackend(local: CacheBackend, redis: JournalRedis, ttlMs: number, usable: () => Promise<boolean>): CacheBackend {
	const redisKey = (key: string) => JOURNAL_REDIS_PREFIX + key;
	const fromRedis = async (key: string): Promise<CacheEntry | null> => {
		if (!(await usable())) return null;
		try {
			return parseEntry(key, await redis.get(redisKey(key)));
		} catch {
			return null;
		}
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
			if (await usable()) await redis.set(redisKey(key), JSON.stringify({ time: entry.time, metadata: entry.metadata }), 'PX', ttlMs).catch(() => undefined);
			return integrity;
		},
	};
}
