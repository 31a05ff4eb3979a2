/**
 * Claims through Redis, for processes on different machines: one record per job key
 * (`mutex:flux-concurrent:claim:<key>`, src/coordination/redisRecords.ts) holding `{ id, owner, beat }`: set only
 * while absent or its owner is judged dead (a process of this machine that is gone: ownerLiveness.processAlive;
 * an owner elsewhere is judged by the PX lease lapsing), renewed while held by the process-wide heartbeat (still
 * ours, or absent: written again with a fresh lease; another owner's: lost), released by deleting it if still
 * ours. Every call goes through SharedRedis (its deadline and fallback): a new claim waits for a Redis not usable
 * while the outage is shorter than `redisGraceMs` (a restart, a blip: an owner elsewhere may hold the key), then
 * resolves without a claim and the caller goes on with its folder claim. A release Redis did not take, or made while
 * the connection's replay queue holds journal entries, waits in that queue (after the journal entries written before
 * it). When Redis answers again, held claims are asserted again at once; when it was restarted (another run_id, or at
 * this process's first look a server up for less than the grace: it forgot every claim), new claims wait out
 * `redisGraceMs` from its restart first, so an owner re-asserts its claim before anyone else can take the key.
 */
import { randomUUID } from 'node:crypto';

import { RestartWatch, type SharedRedis } from '../../redis';
import { holdLease } from '../../coordination/heartbeat';
import { type ProcessOwner as ClaimOwner, processAlive, parseOwner, thisOwner } from '../../coordination/ownerLiveness';
import { RedisRecords } from '../../coordination/redisRecords';
import { replayQueueOf, type ReplayQueue } from '../../coordination/replayQueue';
import { JOURNAL_REPLAYS } from '../journal';
import type { ClaimTiming, HeldClaim } from './claims';
import { backoff, type Wakeups } from '../../coordination/wakeups';

/** Prefix of the claims' Redis keys (after `mutex:`, the prefix of the redis-semaphore Mutex of earlier versions). */
export const CLAIM_REDIS_PREFIX = 'flux-concurrent:claim:';

interface Held {
	key: string;
	id: string;
	lost: boolean;
	stop: () => void;
}

/** The id and owner of a claim's text; earlier versions wrote `<id>~<owner JSON>`. Undefined owner: not readable. */
function readClaim(text: string): { id: string; owner?: ClaimOwner } {
	try {
		if (text.startsWith('{')) {
			const { id, owner } = JSON.parse(text) as { id?: unknown; owner?: unknown };
			return { id: String(id), owner: parseOwner(owner) };
		}
		return { id: text.slice(0, text.indexOf('~')), owner: parseOwner(JSON.parse(text.slice(text.indexOf('~') + 1))) };
	} catch {
		return { id: '' };
	}
}

export class RedisClaims {
	private readonly held = new Set<Held>();
	private readonly records: RedisRecords;
	private readonly replays: ReplayQueue;
	/** When Redis came back restarted (empty): new claims wait until the grace after it is over. */
	private restartedAt = Number.NEGATIVE_INFINITY;
	private readonly restarts: RestartWatch;
	/** Not looked at yet, or Redis was away since: look again before the next claim (a restart forgot every claim). */
	private recheck = true;
	/** When a claim first found Redis not usable in this outage (Redis answering again ends it). */
	private downSince?: number;
	private beats = 0;

	constructor(
		redis: SharedRedis,
		private readonly timing: ClaimTiming,
		private readonly wakeups: Wakeups,
		private readonly onLost: (key: string) => void = () => undefined,
		private readonly owner: ClaimOwner = thisOwner(),
		private readonly now: () => number = Date.now,
	) {
		this.records = new RedisRecords(redis, `mutex:${CLAIM_REDIS_PREFIX}`);
		this.replays = replayQueueOf(redis);
		this.restarts = new RestartWatch(redis, timing.redisGraceMs, now);
		// Redis answers again: a restart noticed, held claims asserted again (what it missed is the replay queue's).
		redis.onUp(() => {
			this.recheck = true; // at once: a claim asked from now on checks for a restart first
			this.downSince = undefined;
			void this.checkRestart().then(async () => {
				for (const held of [...this.held]) await this.renew(held);
			});
		});
	}

	/**
	 * Claims `key` in Redis, waiting while another live owner holds it. Resolves without a claim once Redis has not
	 * been usable for `redisGraceMs`, unless another owner was seen holding the key: then it keeps waiting for Redis
	 * to answer (that owner, on another machine, may be paying for the job right now), until the signal ends it.
	 * Rejects with the signal's reason.
	 */
	async acquire(key: string, signal?: AbortSignal): Promise<{ claim?: HeldClaim; waited: boolean }> {
		const id = randomUUID();
		const pause = backoff(this.timing.waitMinMs, this.timing.waitMaxMs);
		let waited = false;
		for (;;) {
			signal?.throwIfAborted();
			if (this.recheck) await this.checkRestart();
			const grace = this.restartedAt + this.timing.redisGraceMs - this.now();
			if (grace > 0) await this.wakeups.pause(`redis-grace:${key}`, grace, signal);
			const tried = await this.records.update(
				key,
				(text) => {
					const found = text === undefined ? undefined : readClaim(text); // unreadable owner: judged by its lease
					// This attempt's own: an earlier try's write that missed its deadline and ran late (Redis stalled meanwhile).
					if (found?.id === id) return { text: this.textOf(id), result: { claimed: true, seen: false } };
					const free = found === undefined || (found.owner !== undefined && processAlive(found.owner, this.owner) === false);
					return free ? { text: this.textOf(id), result: { claimed: true, seen: found !== undefined } } : { text, result: { claimed: false, seen: true } };
				},
				{ ttlMs: this.timing.redisLeaseMs },
			);
			if (tried.ok) this.downSince = undefined;
			if (tried.ok && tried.value.claimed) return { claim: this.hold(key, id), waited: waited || tried.value.seen };
			if (!tried.ok) {
				this.downSince ??= this.now();
				// Redis not usable and nobody seen holding the key: the folder claim alone once the outage is past the grace
				if (!waited && this.now() - this.downSince >= this.timing.redisGraceMs) return { waited };
				this.recheck = true; // when it answers: restarted (empty)?
				await this.wakeups.pause(key, this.timing.waitMaxMs * 4, signal); // an owner elsewhere may hold it: wait for Redis
				continue;
			}
			waited = true;
			await this.wakeups.pause(key, pause(), signal);
		}
	}

	/** False when this process held `key` and Redis shows another owner now (renewed and checked now); true otherwise (Redis silent: the folder claim decides). */
	async stillHeld(key: string): Promise<boolean> {
		const held = [...this.held].find((h) => h.key === key);
		if (held) await this.renew(held);
		return !held?.lost;
	}

	/** The claim's text: a new one each time (`beat`), so that every renewal is written with a fresh lease. */
	private textOf(id: string): string {
		return JSON.stringify({ id, owner: this.owner, beat: ++this.beats });
	}

	private hold(key: string, id: string): HeldClaim {
		const held: Held = { key, id, lost: false, stop: () => undefined };
		held.stop = holdLease(async () => await this.renew(held), this.timing.heartbeatMs);
		this.held.add(held);
		return {
			held: () => !held.lost,
			release: async () => {
				held.stop();
				this.held.delete(held);
				if (held.lost) return;
				// Deletes the claim if it is still the one `id` names.
				const release = async () => (await this.records.update(key, (text) => ({ text: text !== undefined && readClaim(text).id === id ? undefined : text, result: undefined })).catch(() => ({ ok: false }))).ok;
				// Never before journal entries Redis refused earlier (the job's own among them): a Redis refusing writes (out of
				// memory) still takes the release's delete, and another host would then find the key free and no record of the job.
				if (this.replays.holdsAny(JOURNAL_REPLAYS)) return void this.replays.putAndRetry(`claim:${key}`, release);
				if (!(await release())) this.replays.put(`claim:${key}`, release); // released when Redis answers again (else it lapses after its lease)
			},
		};
	}

	/** Extends the lease; a claim Redis no longer has (lapsed, or Redis restarted empty) is asserted again; another owner's: lost. */
	private async renew(held: Held): Promise<void> {
		if (held.lost) return;
		const renewed = await this.records
			.update(
				held.key,
				(text) => (text === undefined || readClaim(text).id === held.id ? { text: this.textOf(held.id), result: true } : { text, result: false }),
				{ ttlMs: this.timing.redisLeaseMs },
			)
			.catch(() => undefined);
		if (renewed?.ok && !renewed.value && !held.lost) {
			held.lost = true;
			this.onLost(held.key);
		}
	}

	/** A restarted server (RestartWatch) starts the grace for new claims. */
	private async checkRestart(): Promise<void> {
		const seen = await this.restarts.check();
		if (seen === undefined) return;
		this.recheck = false;
		if (seen.restartedAt !== undefined) this.restartedAt = Math.max(this.restartedAt, seen.restartedAt);
	}
}
