/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/spend knows nothing of n8n nodes: its errors reach a node through the job (a SpendRefusal, which the glue turns into a FluxError) and the collector or serial node. */
/**
 * The process's spend ledger: where reservations, refunds and costs go. Without Redis it is the store folder's
 * ledger (fileLedger.ts); with the package's Redis it is the ledger in Redis (redisLedger.ts) and the folder's is
 * its mirror (docs/ARCHITECTURE.md, "Spend"). Redis away or silent: nothing waits past one Redis deadline, the
 * change goes to the folder's ledger (the limit holds per machine, the report says so) and that account is merged
 * into Redis when it answers (the replay queue). A Redis that restarted empty (redis/serverRestart.ts) forgot every
 * machine's spend: every account of the folder is merged into it again, and jobs under a daily limit wait before
 * their POST until the restart is RESTART_NOTICED_MS behind (`restartSettled`), which gives the other machines'
 * processes that long to notice it and put their spend back before a reservation is judged against Redis (a
 * machine with no process running, or one that cannot look, merges with its next change). A ledger that cannot be
 * used refuses.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

import { RestartWatch, type SharedRedis } from '../redis';
import type { Answer } from '../coordination/records';
import type { RecordsRedis } from '../coordination/redisRecords';
import { replayQueueOf, type ReplayQueue } from '../coordination/replayQueue';
import { Wakeups } from '../coordination/wakeups';
import { bootId, ownerAlive, thisOwner, type ProcessOwner } from '../coordination/ownerLiveness';
import { FileLedger, LedgerUnusableError, type LedgerChange } from './fileLedger';
import { merge, refund, reserve, sameLedger, settle, spentIn, type LedgerClock, type LedgerEntry, type LedgerState, type ReserveOutcome, type ReserveRequest, type Spent } from './ledgerState';
import { RedisLedger } from './redisLedger';

/** Where a change was made: the shared ledger (Redis, or the folder when there is no Redis), or this machine's only (Redis away). */
export type LedgerPlace = 'shared' | 'machine';

/** How long after falling back to the local ledger the report still says so. */
export const FALLBACK_REPORTED_MS = 10 * 60_000;
/** How long a process's note that Redis was silent holds the others of its machine back from Redis (ms). */
const SILENCE_SHARED_MS = 5000;
/** A server up for less than this at a process's first look counts as just restarted (the claims' grace by default). */
export const RESTART_NOTICED_MS = 5000;

export type SpendRedis = RecordsRedis & Pick<SharedRedis, 'usable' | 'onUp'>;

export interface SpendLedgerOptions {
	/** The folder of the local ledger (the store folder's `spend`). */
	dir: string;
	redis?: SpendRedis;
	clock?: () => LedgerClock;
	warn?: (message: string) => void;
	/** This process as the owner of its reservations (tests: another process). */
	owner?: ProcessOwner;
}

export class SpendLedger {
	readonly file: FileLedger;
	private readonly shared?: RedisLedger;
	private readonly clock: () => LedgerClock;
	private readonly warn: (message: string) => void;
	private readonly owner: ProcessOwner;
	private readonly changes = new Wakeups();
	/** Accounts changed on this machine's ledger alone: merged into Redis when it answers again. */
	private readonly replays?: ReplayQueue;
	private readonly inFlight = new Set<Promise<unknown>>();
	private lastFallback?: { at: number; reason: string };
	private mirrorWarned = false;
	/** The folder's note that a process of this machine found Redis silent (updateShared); best effort. */
	private readonly silenceFile: string;
	/** When this process's Redis last answered again after an outage (wall ms; 0: never was away). */
	private redisBackAt = 0;
	private readonly restarts?: RestartWatch;
	/** Not looked at yet, or Redis was away since: look before the next change (a restart forgot every machine's spend). */
	private recheck = true;
	/** The look under way (one INFO at a time). */
	private looking?: Promise<void>;
	/** When Redis was last seen restarted (this clock): reservations wait until RESTART_NOTICED_MS after it. */
	private restartedAt = Number.NEGATIVE_INFINITY;

	constructor(private readonly options: SpendLedgerOptions) {
		this.file = new FileLedger(options.dir);
		this.clock = options.clock ?? systemClock;
		this.warn = options.warn ?? (() => undefined);
		this.owner = options.owner ?? thisOwner();
		this.silenceFile = path.join(options.dir, 'redis-silent');
		if (options.redis) {
			this.shared = new RedisLedger(options.redis);
			const replays = (this.replays = replayQueueOf(options.redis));
			this.restarts = new RestartWatch(options.redis, RESTART_NOTICED_MS);
			options.redis.onUp(() => {
				this.redisBackAt = Date.now();
				this.recheck = true;
				this.track(replays.idle()); // the queue replays on its own; idle() waits for it
				this.track(this.lookForRestart());
			});
		}
	}

	/** Reserves one job's share (see ledgerState.reserve); rejects with LedgerUnusableError when no ledger can be used. */
	async reserve(account: string, request: Omit<ReserveRequest, 'owner'>): Promise<ReserveOutcome & { place: LedgerPlace }> {
		const clock = this.clock();
		// An owner that cannot be seen (another host or PID namespace, or an entry older than owners) holds others back until blocksUntil.
		const alive = (entry: LedgerEntry) => ownerAlive(entry.owner, { seenAt: entry.at, lapseMs: (entry.blocksUntil ?? entry.at) - entry.at }, clock.wall, this.owner);
		const { result, place } = await this.apply(account, (state) => reserve(state, { ...request, owner: this.owner }, clock, alive));
		return { ...result, place };
	}

	/**
	 * Resolves once a restart of Redis (an empty one: it forgot every machine's spend) is RESTART_NOTICED_MS behind,
	 * looking first when it was not looked at since it was away (a look at a Redis still away fails at once: the
	 * folder's ledger decides then); at once without Redis, or when `signal` fires (the caller sees its signal). A
	 * heuristic: the other machines' processes get that long to notice the restart and put their spend back. Called
	 * before a job's POST starts, so no connection is held open meanwhile.
	 */
	async restartSettled(signal?: AbortSignal): Promise<void> {
		if (!this.restarts) return;
		if (this.recheck || this.looking) await this.lookForRestart(); // a look under way (Redis just answered again) too
		const left = this.restartedAt + RESTART_NOTICED_MS - Date.now();
		// A key no account has: only the time or the signal ends the pause.
		if (left > 0) await this.changes.pause('restart grace', left, signal).catch(() => undefined);
	}

	/** Gives a reservation back (its POST provably created no task). */
	async refund(account: string, id: string): Promise<void> {
		await this.apply(account, (state) => ({ state: refund(state, id, this.clock()), result: undefined }));
	}

	/** An acknowledgement or the job's end, with the API's cost (see ledgerState.settle). */
	async settle(account: string, update: Parameters<typeof settle>[1]): Promise<void> {
		await this.apply(account, (state) => ({ state: settle(state, update, this.clock()), result: undefined }));
	}

	/**
	 * What the account spent in the window, from the shared ledger (the local one while Redis is away), and the models
	 * whose finished jobs the API reported no cost for (`noCost`: the credit limit cannot be enforced for them).
	 */
	async balance(account: string): Promise<{ spent: Spent; noCost: string[]; place: LedgerPlace }> {
		const clock = this.clock();
		const read = await this.shared?.read(account);
		const state = read?.ok ? read.value : await this.file.read(account);
		return { spent: spentIn(state, clock), noCost: Object.keys(state.noCost ?? {}), place: this.shared && !read?.ok ? 'machine' : 'shared' };
	}

	/**
	 * Resolves when the account's ledger changes in this process, after `ms`, or when `signal` fires, whichever
	 * comes first (a job waiting for another's price looks again then; other processes' changes are seen at `ms`).
	 */
	async changed(account: string, ms: number, signal: AbortSignal): Promise<void> {
		await this.changes.pause(account, ms, signal).catch(() => undefined); // aborted: the caller sees its signal
	}

	/** The report's note while the limits hold per machine (Redis away now or within the last ten minutes). */
	warnings(): string[] {
		const fallback = this.lastFallback;
		if (!fallback || this.clock().wall - fallback.at > FALLBACK_REPORTED_MS) return [];
		return [
			`The spend ledger in Redis at ${this.options.redis?.where ?? 'Redis'} could not be used (${fallback.reason}): meanwhile the daily limits of the FLUX API credential hold per machine (the ledger in ${this.options.dir}); what this machine spent is added to the shared ledger when Redis answers again.`,
		];
	}

	/** Tests: resolves once every change started so far (refunds, costs, mirror writes, syncs) has been made. */
	async idle(): Promise<void> {
		while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
	}

	/** Starts `work` and keeps it until it settles (for `idle`); its failure is logged, never thrown. */
	track(work: Promise<unknown>): void {
		const tracked = work.catch((error: unknown) => this.warn(`The spend ledger: ${error instanceof Error ? error.message : String(error)}`));
		this.inFlight.add(tracked);
		void tracked.finally(() => this.inFlight.delete(tracked));
	}

	/**
	 * One change of an account's ledger: in Redis when it can be used (and the folder's ledger), else in the folder's.
	 * Wakes the account's waiting jobs when it changed something (a look that waits wakes no other: no loop).
	 */
	private async apply<T>(account: string, change: LedgerChange<T>): Promise<{ result: T; place: LedgerPlace }> {
		let changed = false;
		const noted: LedgerChange<T> = (state) => {
			const out = change(state);
			changed ||= out.state !== state;
			return out;
		};
		try {
			if (!this.shared) return { result: await this.file.locked(account, async (ledger) => await ledger.apply(noted)), place: 'shared' };
			return await this.applyShared(this.shared, account, noted);
		} finally {
			if (changed) this.changes.wake(account);
		}
	}

	/**
	 * Holding the folder ledger's lock: the change in Redis on the Redis state merged with the folder's, the result
	 * written to the folder before the lock is let go; when Redis fails, the change on the folder's ledger, which then
	 * misses nothing this machine was granted in Redis (a mirror written after the lock let three processes on one
	 * folder buy 61 under a limit of 60).
	 */
	private async applyShared<T>(shared: RedisLedger, account: string, change: LedgerChange<T>): Promise<{ result: T; place: LedgerPlace }> {
		let locked = false;
		let granted: { result: T } | undefined;
		try {
			return await this.file.locked(account, async (ledger) => {
				locked = true;
				// Damaged: rewritten from Redis below, or refused if Redis fails too.
				const local = await ledger.read().catch((error: unknown) => (error instanceof LedgerUnusableError ? undefined : Promise.reject(error)));
				const clock = this.clock();
				const done = await this.updateShared(shared, account, (state) => change(local ? merge(state, local, clock) : state));
				if (done.ok) {
					if (this.recheck) this.track(this.lookForRestart()); // Redis answers: restarted since last looked at?
					granted = { result: done.value.result };
					if (!local || !sameLedger(local, done.value.state)) await ledger.write(done.value.state);
					return { result: done.value.result, place: 'shared' as const };
				}
				this.fellBack(account, done.reason);
				// A damaged ledger and no Redis: read again, it rejects (LedgerUnusableError): refused.
				return { result: await ledger.apply(change, local), place: 'machine' as const };
			});
		} catch (error) {
			if (!(error instanceof LedgerUnusableError)) throw error;
			// Redis granted the change but the folder's ledger could not be written: the change stands (Redis holds it).
			if (granted) return this.mirrorFailed(error, granted.result);
			// Live processes held the lock all the wait: refused, as without Redis (a change made in Redis alone would be
			// missing from the folder, and a process of this machine falling back later would not see it).
			if (locked || error.lockBusy) throw error;
			// The folder's ledger cannot be locked (an unwritable folder): Redis alone while it answers; without it, refused.
			const done = await shared.update(account, change);
			if (!done.ok) throw error;
			return this.mirrorFailed(error, done.value.result);
		}
	}

	/**
	 * The change in Redis, holding the folder's lock, unless another process of this machine found Redis silent a
	 * moment ago and this one has not seen it answer since (then at once `{ ok: false }`: each process waiting a
	 * deadline of its own under the lock made N processes wait N deadlines, past the lock's budget). Noted when this
	 * call is what found it silent; cleared when it answers.
	 */
	private async updateShared<T>(shared: RedisLedger, account: string, change: LedgerChange<T>): Promise<Answer<{ result: T; state: LedgerState }>> {
		const redis = this.options.redis!;
		const silentAt = (await fs.stat(this.silenceFile).catch(() => undefined))?.mtimeMs;
		const age = silentAt === undefined ? Infinity : Date.now() - silentAt;
		if (silentAt !== undefined && age < SILENCE_SHARED_MS && silentAt > this.redisBackAt) {
			return { ok: false, reason: `another process of this machine found it silent ${Math.max(0, Math.round(age / 100) / 10)} s ago` };
		}
		const wasUsable = redis.usable();
		const done = await shared.update(account, change);
		if (done.ok && silentAt !== undefined) await fs.rm(this.silenceFile, { force: true }).catch(() => undefined);
		if (!done.ok && wasUsable && !redis.usable()) await fs.writeFile(this.silenceFile, String(Date.now())).catch(() => undefined);
		return done;
	}

	private mirrorFailed<T>(error: LedgerUnusableError, result: T): { result: T; place: LedgerPlace } {
		if (!this.mirrorWarned) {
			this.mirrorWarned = true;
			this.warn(`The local mirror of the spend ledger could not be written (${error.message}); if Redis becomes unusable, jobs under a daily limit are refused until it can be.`);
		}
		return { result, place: 'shared' };
	}

	/** The account's folder ledger merged into Redis when it answers again or takes writes again (the replay queue's return and retries). */
	private queueMerge(account: string): void {
		this.replays?.put(`spend:${account}`, async () => {
			const merged = this.apply(account, (state) => ({ state, result: undefined }));
			this.track(merged);
			return (await merged).place === 'shared';
		});
	}

	/** Looks at the server (one look at a time, shared by its callers): see checkRestart. */
	private async lookForRestart(): Promise<void> {
		this.looking ??= this.checkRestart().finally(() => (this.looking = undefined));
		await this.looking;
	}

	/**
	 * A restarted Redis (RestartWatch) starts the wait of reservations (restartSettled), and every account of the folder
	 * ledger is merged into it through the replay queue (tracked: `idle` waits for it).
	 */
	private async checkRestart(): Promise<void> {
		this.recheck = false;
		const seen = await this.restarts!.check();
		if (seen === undefined) {
			this.recheck = true; // not answered: look again with the next change or when it answers
			return;
		}
		if (seen.restartedAt === undefined) return;
		this.restartedAt = Math.max(this.restartedAt, seen.restartedAt);
		for (const name of await fs.readdir(this.options.dir).catch(() => [] as string[])) if (name.endsWith('.json')) this.queueMerge(name.slice(0, -'.json'.length));
		this.track(this.replays!.replay());
	}

	private fellBack(account: string, reason: string): void {
		// What this machine spent while Redis was away reaches Redis when it answers, not only with the account's next change.
		this.queueMerge(account);
		const first = !this.lastFallback || this.clock().wall - this.lastFallback.at > FALLBACK_REPORTED_MS;
		this.lastFallback = { at: this.clock().wall, reason };
		if (first) this.warn(this.warnings()[0] ?? reason);
	}
}

/** The real clock (ledgerState.ts, LedgerClock). */
export function systemClock(): LedgerClock {
	const boot = bootId() || undefined;
	return boot === undefined ? { wall: Date.now() } : { wall: Date.now(), mono: Number(process.hrtime.bigint() / 1_000_000n), boot };
}
