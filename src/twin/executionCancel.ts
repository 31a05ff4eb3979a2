import type { WorkerPool } from '../pool';

const CANCEL_REASON = 'The n8n execution was cancelled';

/** Who listens through one signal's single listener: owner hold counts per pool. */
interface ExecutionWatch {
	onAbort: () => void;
	holds: Map<WorkerPool, Map<string, number>>;
}

const watches = new WeakMap<AbortSignal, ExecutionWatch>();

function addHold(watch: ExecutionWatch, pool: WorkerPool, owner: string, delta: 1 | -1): void {
	const owners = watch.holds.get(pool) ?? new Map<string, number>();
	const count = (owners.get(owner) ?? 0) + delta;
	if (count > 0) owners.set(owner, count);
	else owners.delete(owner);
	if (owners.size > 0) watch.holds.set(pool, owners);
	else watch.holds.delete(pool);
}

function startWatch(signal: AbortSignal): ExecutionWatch {
	const watch: ExecutionWatch = {
		holds: new Map(),
		onAbort: () => {
			watches.delete(signal);
			for (const [pool, owners] of watch.holds) for (const owner of owners.keys()) pool.cancelOwner(owner, CANCEL_REASON);
			watch.holds.clear();
		},
	};
	signal.addEventListener('abort', watch.onAbort, { once: true });
	watches.set(signal, watch);
	return watch;
}

/**
 * While held, cancel `owner`'s jobs in `pool` (queued ones never start, running
 * ones are aborted) when the n8n execution's `signal` aborts. However many node
 * runs hold it, a signal gets ONE abort listener, removed when the last hold is
 * released; n8n's listener limit is never touched. Returns `release` (idempotent):
 * call it when the holder no longer needs the watch (the twin: once its jobs are
 * final; the collector: when it returns). With no signal or owner, or an already
 * aborted signal (the owner's jobs are cancelled at once), there is nothing to hold.
 */
export function watchExecutionCancel(
	signal: AbortSignal | undefined,
	owner: string | undefined,
	pool: WorkerPool,
): () => void {
	if (!signal || owner === undefined) return () => {};
	if (signal.aborted) {
		pool.cancelOwner(owner, CANCEL_REASON);
		return () => {};
	}
	const watch = watches.get(signal) ?? startWatch(signal);
	addHold(watch, pool, owner, 1);
	let released = false;
	return () => {
		if (released) return;
		released = true;
		if (watches.get(signal) !== watch) return; // aborted meanwhile: the watch is gone
		addHold(watch, pool, owner, -1);
		if (watch.holds.size > 0) return;
		signal.removeEventListener('abort', watch.onAbort);
		watches.delete(signal);
	};
}

/** Release `release` once every listed job is final (or unknown), whatever its outcome. */
export function releaseWhenFinal(pool: WorkerPool, jobIds: readonly string[], release: () => void): void {
	void Promise.allSettled(jobIds.map(async (id) => await pool.wait(id))).then(release);
}
