/**
 * Leases of a limit shared through Redis: redis-semaphore's `Semaphore` (a sorted set per limit, one
 * member per holder scored by its last refresh; an atomic Lua script admits while fewer than `limit`
 * members are younger than the lease TTL). A held lease is refreshed every `refreshMs`; a dead
 * process stops refreshing and its leases lapse after `ttlMs`. Redis failing resolves `undefined`
 * (the caller falls back); an abort rejects with the signal's reason and leaves nothing held.
 */
import { Semaphore } from 'redis-semaphore';
import type { RedisConnection } from './redisConnection';
import { LIMIT_KEY_PREFIX } from './accountKey';

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
		private readonly connection: RedisConnection,
		private readonly timing: LeaseTiming = DEFAULT_LEASE_TIMING,
		private readonly onLost: (why: string) => void = () => undefined,
	) {}

	/** One lease of `limit` under `name`, or undefined when Redis is not usable. */
	async acquire(name: string, limit: number, signal?: AbortSignal): Promise<Lease | undefined> {
		if (!(await this.connection.ready())) return undefined;
		const semaphore = new Semaphore(this.connection.client, LIMIT_KEY_PREFIX + name, limit, {
			lockTimeout: this.timing.ttlMs,
			refreshInterval: this.timing.refreshMs,
			retryInterval: this.timing.retryIntervalMs,
			acquireTimeout: Number.POSITIVE_INFINITY,
			onLockLost: () => this.onLost('a lease could not be refreshed'),
		});
		try {
			await semaphore.acquire(signal);
		} catch {
			semaphore.stopRefresh();
			if (signal?.aborted) throw signal.reason;
			return undefined; // Redis failed while waiting: the caller goes on per process
		}
		return { release: () => semaphore.release().catch(() => semaphore.stopRefresh()) };
	}
}
