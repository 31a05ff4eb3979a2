/**
 * What a test reads of the account limit's leases in its own redis-server (redis-semaphore: one sorted set
 * per limit under LIMIT_REDIS_KEY_PREFIX, a member per lease, scored with the holder's clock at its last
 * acquire or refresh; a lease lapses once that is `ttlMs` old).
 */
import type { Redis } from 'ioredis';
import { LIMIT_REDIS_KEY_PREFIX } from '../../src/accountLimit';

/** The limit keys in Redis (the tests use one account and model: one key, or none when no lease is held). */
export async function limitKeys(client: Redis): Promise<string[]> {
	return await client.keys(`${LIMIT_REDIS_KEY_PREFIX}*`);
}

/** How many leases the one limit key holds (0 when there is no key). */
export async function leasesHeld(client: Redis): Promise<number> {
	const keys = await limitKeys(client);
	return keys.length === 1 ? await client.zcard(keys[0]) : 0;
}

/** When each lease under `key` was last acquired or refreshed (the holder's epoch ms), oldest first. */
export async function leaseStamps(client: Redis, key: string): Promise<number[]> {
	const flat = await client.zrange(key, 0, -1, 'WITHSCORES');
	return flat.filter((_, i) => i % 2 === 1).map(Number).sort((a, b) => a - b);
}

/** How leases leave the limit sets: `zrem` (released by the holder), `zremrangebyscore` or `expired` (lapsed). */
export type LeaseRemoval = 'zrem' | 'zremrangebyscore' | 'expired';

export interface LeaseRemovalWatch {
	/** Every removal seen so far, in Redis's order. */
	readonly removals: LeaseRemoval[];
	/** True once a limit key was deleted (its last lease left) or expired. */
	keyGone(): boolean;
}

/**
 * Watches the limit keys through Redis keyspace notifications (switched on for this server: the test's own),
 * telling a lease released by its holder from one that lapsed, with no clock. `subscriber` becomes a
 * subscriber connection: give it a client of its own (and disconnect it after).
 */
export async function watchLeaseRemovals(admin: Redis, subscriber: Redis): Promise<LeaseRemovalWatch> {
	await admin.config('SET', 'notify-keyspace-events', 'Kgxz');
	const removals: LeaseRemoval[] = [];
	let gone = false;
	subscriber.on('pmessage', (_pattern: string, _channel: string, event: string) => {
		if (event === 'zrem' || event === 'zremrangebyscore' || event === 'expired') removals.push(event);
		if (event === 'del' || event === 'expired') gone = true;
	});
	await subscriber.psubscribe(`__keyspace@0__:${LIMIT_REDIS_KEY_PREFIX}*`);
	return { removals, keyGone: () => gone };
}
