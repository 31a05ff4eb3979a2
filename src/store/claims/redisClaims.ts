/**
 * Claims through Redis, for processes on different machines: redis-semaphore's Mutex (`SET key id NX PX lease`,
 * released and extended by compare-and-set scripts), one key per job key, `mutex:flux-concurrent:claim:<key>`,
 * whose value names its owner (src/coordination/ownerLiveness.ts). The owner extends the lease every heartbeat; an owner that died
 * stops, and its claim lapses after the lease (at once when the claimant is on the owner's machine and sees
 * its process gone). Every call goes through SharedRedis.run (its deadline and fallback): Redis not usable (down,
 * stalled, refusing) resolves without a claim within one deadline and the caller goes on with its folder claim.
 * When Redis answers again, held claims are asserted again at once; when it was restarted (another run_id: it
 * forgot every claim), new claims wait `redisGraceMs` first, so an owner re-asserts its claim before anyone else
 * can take the key.
 */
import { randomUUID } from 'node:crypto';
import { Mutex } from 'redis-semaphore';

import type { SharedRedis } from '../../redis';
import { type ProcessOwner as ClaimOwner, processAlive as ownerAlive, parseOwner, thisOwner } from '../../coordination/ownerLiveness';
import type { ClaimTiming } from './claims';
import { backoff, type ClaimWakeups, type HeldClaim } from './claimWait';

/** Prefix of the claims' Redis keys (redis-semaphore puts `mutex:` before it). */
export const CLAIM_REDIS_PREFIX = 'flux-concurrent:claim:';
const MUTEX_PREFIX = 'mutex:';

/** Deletes the claim only if it still holds the value judged dead (never a claim made meanwhile). */
const DELETE_IF_EQUAL = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

interface Held {
	key: string;
	identifier: string;
	lost: boolean;
	timer: NodeJS.Timeout;
}

/** The value of a claim: a random id, then its owner as JSON. */
function identifierOf(owner: ClaimOwner): string {
	return `${randomUUID()}~${JSON.stringify(owner)}`;
}

function ownerOf(identifier: string): ClaimOwner | undefined {
	try {
		return parseOwner(JSON.parse(identifier.slice(identifier.indexOf('~') + 1)));
	} catch {
		return undefined;
	}
}

export class RedisClaims {
	private readonly held = new Set<Held>();
	/** Claims let go while Redis did not answer: released when it answers again (else they lapse after their lease). */
	private readonly unreleased = new Map<string, string>();
	/** When Redis came back restarted (empty): new claims wait until the grace after it is over. */
	private restartedAt = Number.NEGATIVE_INFINITY;
	/** The run_id of the Redis server last seen (a new one: it restarted). */
	private runId?: string;
	/** Redis was away since the run_id was last read: read it again before the next claim (a restart forgot every claim). */
	private recheck = false;

	constructor(
		private readonly redis: SharedRedis,
		private readonly timing: ClaimTiming,
		private readonly wakeups: ClaimWakeups,
		private readonly onLost: (key: string) => void = () => undefined,
		private readonly owner: ClaimOwner = thisOwner(),
		private readonly now: () => number = Date.now,
		/** Awaited when Redis answers again, before claims let go meanwhile are released (the journal re-mirrored first). */
		private readonly beforeRelease: () => Promise<void> = async () => undefined,
	) {
		redis.onUp(() => {
			this.recheck = true; // at once: a claim asked from now on checks for a restart first
			void this.cameBack();
		});
	}

	/**
	 * Claims `key` in Redis, waiting while another live owner holds it. Resolves without a claim when Redis is not
	 * usable (within one deadline), unless another owner was seen holding the key: then it keeps waiting for Redis
	 * to answer (that owner, on another machine, may be paying for the job right now), until the signal ends it.
	 * Rejects with the signal's reason.
	 */
	async acquire(key: string, signal?: AbortSignal): Promise<{ claim?: HeldClaim; waited: boolean }> {
		const redisKey = CLAIM_REDIS_PREFIX + key;
		const identifier = identifierOf(this.owner);
		const pause = backoff(this.timing.waitMinMs, this.timing.waitMaxMs);
		let waited = false;
		for (;;) {
			signal?.throwIfAborted();
			if (this.recheck || this.runId === undefined) await this.checkRestart();
			const grace = this.restartedAt + this.timing.redisGraceMs - this.now();
			if (grace > 0) await this.wakeups.pause(`redis-grace:${key}`, grace, signal);
			const mutex = this.mutex(redisKey, identifier, false);
			const tried = await this.redis.run(async () => await mutex.tryAcquire());
			if (tried.ok && tried.value) return { claim: this.hold(key, identifier), waited };
			const holder = tried.ok ? await this.redis.run(async (client) => await client.get(MUTEX_PREFIX + redisKey)) : tried;
			if (!holder.ok) {
				if (!waited) return { waited }; // Redis not usable and nobody seen holding the key: the folder claim alone
				this.recheck = true; // when it answers: restarted (empty)?
				await this.wakeups.pause(key, this.timing.waitMaxMs * 4, signal); // an owner elsewhere holds it: wait for Redis
				continue;
			}
			if (holder.value === null) continue; // released meanwhile
			waited = true;
			const owner = ownerOf(holder.value);
			if (owner && ownerAlive(owner, this.owner) === false) await this.redis.eval(DELETE_IF_EQUAL, [MUTEX_PREFIX + redisKey], [holder.value]);
			else await this.wakeups.pause(key, pause(), signal);
		}
	}

	/** How many claims this process holds in Redis. */
	get size(): number {
		return this.held.size;
	}

	/** False when this process held `key` and Redis shows another owner now (renewed and checked now); true otherwise (Redis silent: the folder claim decides). */
	async stillHeld(key: string): Promise<boolean> {
		const held = [...this.held].find((h) => h.key === key);
		if (held) await this.renew(held);
		return !held?.lost;
	}

	private mutex(redisKey: string, identifier: string, held: boolean): Mutex {
		const lease = { lockTimeout: this.timing.redisLeaseMs, refreshInterval: 0 };
		return held
			? new Mutex(this.redis.client, redisKey, { ...lease, identifier, acquiredExternally: true })
			: new Mutex(this.redis.client, redisKey, { ...lease, identifier, acquireAttemptsLimit: 1, acquireTimeout: this.timing.redisLeaseMs, retryInterval: 0 });
	}

	private hold(key: string, identifier: string): HeldClaim {
		const held: Held = { key, identifier, lost: false, timer: setInterval(() => void this.renew(held), this.timing.heartbeatMs) };
		held.timer.unref();
		this.held.add(held);
		return {
			held: () => !held.lost,
			release: async () => {
				clearInterval(held.timer);
				this.held.delete(held);
				if (held.lost) return;
				const released = await this.redis.run(async () => await this.mutex(CLAIM_REDIS_PREFIX + key, identifier, true).release()).catch(() => undefined);
				if (!released?.ok) this.unreleased.set(key, identifier); // released when Redis answers again (else it lapses after its lease)
			},
		};
	}

	/** Extends the lease; a claim Redis no longer has (lapsed, or Redis restarted empty) is asserted again. */
	private async renew(held: Held): Promise<void> {
		if (held.lost) return;
		const renewed = await this.redis.run(async () => await this.mutex(CLAIM_REDIS_PREFIX + held.key, held.identifier, true).tryAcquire()).catch(() => undefined);
		if (renewed?.ok && !renewed.value) await this.reassert(held);
	}

	/** A restarted server (another run_id than last seen) starts the grace for new claims. */
	private async checkRestart(): Promise<void> {
		const before = this.runId;
		const now = await this.serverRunId();
		if (now === undefined) return;
		this.recheck = false;
		if (before !== undefined && now !== before) this.restartedAt = this.now();
	}

	/** Redis answers again: a restart noticed, claims let go meanwhile released, held claims asserted again. */
	private async cameBack(): Promise<void> {
		await this.checkRestart();
		await this.beforeRelease().catch(() => undefined);
		for (const [key, identifier] of [...this.unreleased]) {
			const released = await this.redis.run(async () => await this.mutex(CLAIM_REDIS_PREFIX + key, identifier, true).release()).catch(() => undefined);
			if (released?.ok) this.unreleased.delete(key);
		}
		for (const held of [...this.held]) await this.reassert(held);
	}

	private async serverRunId(): Promise<string | undefined> {
		const info = await this.redis.run(async (client) => await client.info('server')).catch(() => undefined);
		const found = info?.ok ? /run_id:([0-9a-f]+)/.exec(info.value)?.[1] : undefined;
		if (found !== undefined) this.runId = found;
		return found;
	}

	/** SET NX again: ours again, or lost to another owner (then it is never released by us). */
	private async reassert(held: Held): Promise<void> {
		if (held.lost) return;
		const redisKey = MUTEX_PREFIX + CLAIM_REDIS_PREFIX + held.key;
		const set = await this.redis.run(async (client) => await client.set(redisKey, held.identifier, 'PX', this.timing.redisLeaseMs, 'NX')).catch(() => undefined);
		if (!set?.ok || set.value === 'OK') return;
		const current = await this.redis.run(async (client) => await client.get(redisKey)).catch(() => undefined);
		if (current?.ok && current.value !== held.identifier) {
			held.lost = true;
			this.onLost(held.key);
		}
	}
}
