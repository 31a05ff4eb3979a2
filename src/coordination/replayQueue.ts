/**
 * What Redis missed (away, or answering with an error), replayed in order: one queue per Redis connection,
 * shared by the journal's mirror, the claims and the spend ledger, so their writes reach Redis in the order they
 * were made (a job's journal entry before the release of its claim). A name holds its latest replay only (a newer
 * one replaces it and moves to the end); a replay answers true when done, false (or rejects) when Redis failed
 * again: it stays queued and the replay stops there, so nothing behind it overtakes it. A replay starts each time the
 * connection answers again after an outage, after the `onReturn` hooks ran (what is to be put again each time, e.g.
 * a restarted Redis forgot running jobs). While anything is queued the queue also tries again every `retryEveryMs` on
 * the shared heartbeat (unref'd): a Redis that answered with an error (out of memory, refusing writes while it cannot
 * save, a replica during a failover) was never away, so no return would ever come. Bounded: past `limit` names the
 * oldest is dropped (what it would have put lapses or is put again by its next change).
 */
import { holdLease } from './heartbeat';

/** What the queue needs of the Redis connection: to hear when it answers again. */
export interface ReturnSignal {
	onUp(listener: () => void): void;
}

export type Replay = () => Promise<boolean>;

export const REPLAY_LIMIT = 100_000;
/** How often a queue that holds replays tries them again without a return (ms). */
export const REPLAY_RETRY_MS = 1_000;

export class ReplayQueue {
	private readonly queued = new Map<string, Replay>();
	private readonly returnHooks: Array<() => void> = [];
	private tail: Promise<void> = Promise.resolve();
	/** Stops the retries (held while anything is queued). */
	private stopRetries?: () => void;

	constructor(
		signal?: ReturnSignal,
		private readonly limit = REPLAY_LIMIT,
		private readonly retryEveryMs = REPLAY_RETRY_MS,
	) {
		signal?.onUp(() => void this.replay());
	}

	/** Queues `replay` under `name` (replacing what `name` had queued). */
	put(name: string, replay: Replay): void {
		this.queued.delete(name);
		this.queued.set(name, replay);
		if (this.queued.size > this.limit) this.queued.delete(this.queued.keys().next().value as string);
		this.stopRetries ??= holdLease(async () => await this.run(false), this.retryEveryMs);
	}

	/** Queues `replay` under `name` (put), then tries the queue again now, in order, without the return hooks. */
	async putAndRetry(name: string, replay: Replay): Promise<void> {
		this.put(name, replay);
		await this.run(false);
	}

	/** Forgets what `name` had queued (it reached Redis meanwhile). */
	drop(name: string): void {
		this.queued.delete(name);
		this.stopRetriesIfEmpty();
	}

	has(name: string): boolean {
		return this.queued.has(name);
	}

	/** True when a name starting with `prefix` is queued. */
	holdsAny(prefix: string): boolean {
		for (const name of this.queued.keys()) if (name.startsWith(prefix)) return true;
		return false;
	}

	get size(): number {
		return this.queued.size;
	}

	/** Runs `hook` at the start of every replay (it may `put`). */
	onReturn(hook: () => void): void {
		this.returnHooks.push(hook);
	}

	/** Runs the return hooks, then replays what is queued, in order, until one fails; resolves when done (one replay at a time: a call meanwhile runs after it). */
	async replay(): Promise<void> {
		await this.run(true);
	}

	/** Resolves when the replays started so far are over. */
	async idle(): Promise<void> {
		await this.tail;
	}

	/** A replay (`returned`: the connection's return, with its hooks; else a retry), after those started before it. */
	private async run(returned: boolean): Promise<void> {
		const run = this.tail.then(async () => await this.drain(returned));
		this.tail = run.catch(() => undefined);
		await run;
	}

	private async drain(returned: boolean): Promise<void> {
		if (returned) for (const hook of this.returnHooks) hook();
		try {
			for (const [name, replay] of [...this.queued]) {
				if (this.queued.get(name) !== replay) continue; // replaced or dropped meanwhile
				if (!(await replay().catch(() => false))) return;
				if (this.queued.get(name) === replay) this.queued.delete(name);
			}
		} finally {
			this.stopRetriesIfEmpty();
		}
	}

	/** The retries end once nothing is queued (a `put` starts them again). */
	private stopRetriesIfEmpty(): void {
		if (this.queued.size > 0 || !this.stopRetries) return;
		this.stopRetries();
		this.stopRetries = undefined;
	}
}

const queues = new WeakMap<ReturnSignal, ReplayQueue>();

/** The one queue of a Redis connection (`retryEveryMs`: its retries' period, taken by the call that makes it). */
export function replayQueueOf(redis: ReturnSignal, retryEveryMs = REPLAY_RETRY_MS): ReplayQueue {
	let queue = queues.get(redis);
	if (!queue) queues.set(redis, (queue = new ReplayQueue(redis, REPLAY_LIMIT, retryEveryMs)));
	return queue;
}
