/**
 * Leases of a limit shared through Redis: redis-semaphore's `Semaphore` (a sorted set per limit, one member per
 * holder scored by its last refresh; an atomic Lua script admits while fewer than `limit` members are younger than
 * the lease TTL). A held lease is refreshed every `refreshMs` by the process's heartbeat (coordination/heartbeat.ts);
 * a dead process stops refreshing and its leases lapse after `ttlMs`. Every Redis call goes through SharedRedis.run
 * (its deadline and fallback): Redis not usable resolves `undefined` (the caller falls back); an abort rejects with
 * the signal's reason and leaves nothing held.
 */
import { Semaphore } from 'redis-semaphore';

import { holdLease } from '../coordination/heartbeat';
import type { SharedRedis } from '../redis';

/** Prefix of every limit name this package hands to redis-semaphore. */
export const LIMIT_KEY_PREFIX = 'flux-concurrent:limit:';
/** The Redis key of a limit: redis-semaphore prefixes its sorted set with `semaphore:`. */
export const LIMIT_REDIS_KEY_PREFIX = `semaphore:${LIMIT_KEY_PREFIX}`;

export interface LeaseTiming {
	/** A lease not refreshed for this long lapses (a crashed holder frees its slot after at most this). */
	ttlMs: number;
	/** How often a held lease is refreshed. */
	refreshMs: number;
	/** Pause between attempts while the limit is full. */
	retryIntervalMs: number;
}

export const DEFAULT_LEASE_TIMING: LeaseTiming = { ttlMs: 10_000, refreshMs: 3_000, retryIntervalMs: 25 };

/** A held lease; `release` never rejects (a lease that cannot be released lapses by its TTL). */
export interface Lease {
	release(): Promise<void>;
}

export class RedisLeases {
	constructor(
		readonly redis: SharedRedis,
		private readonly timing: LeaseTiming = DEFAULT_LEASE_TIMING,
		private readonly onLapsed: (why: string) => void = () => undefined,
	) {}

	/** One lease of `limit` under `name`, or undefined when Redis is not usable. */
	async acquire(name: string, limit: number, signal?: AbortSignal): Promise<Lease | undefined> {
		const key = LIMIT_KEY_PREFIX + name;
		// No library refresh timer: its refresh rejects unhandled while Redis is away (ours below goes through run).
		const semaphore = new Semaphore(this.redis.client, key, limit, {
			lockTimeout: this.timing.ttlMs,
			refreshInterval: 0,
			retryInterval: this.timing.retryIntervalMs,
			acquireTimeout: Number.POSITIVE_INFINITY,
		});
		const acquired = await this.redis.run(async () => await semaphore.acquire(signal)).catch((error: unknown) => Promise.reject(signal?.aborted ? signal.reason : error));
		if (!acquired.ok) {
			if (signal?.aborted) throw signal.reason;
			return undefined; // Redis failed while waiting: the caller goes on per process
		}
		const stopRefreshing = holdLease(async () => await this.refresh(key, limit, semaphore.identifier), this.timing.refreshMs);
		return {
			release: async () => {
				stopRefreshing();
				await this.redis.run(async () => await semaphore.release()).catch(() => undefined); // not released: it lapses by its TTL
			},
		};
	}

	/** Extends a held lease (redis-semaphore's refresh of an externally acquired identifier); never rejects. */
	private async refresh(key: string, limit: number, identifier: string): Promise<void> {
		const same = new Semaphore(this.redis.client, key, limit, { identifier, acquiredExternally: true, lockTimeout: this.timing.ttlMs, refreshInterval: 0 });
		const refreshed = await this.redis.run(async () => await same.tryAcquire()).catch(() => undefined);
		// Redis not usable: SharedRedis reports it; the lease lapses by its TTL unless Redis returns first.
		if (refreshed?.ok && !refreshed.value) this.onLapsed('a lease lapsed before it could be refreshed');
	}
}
