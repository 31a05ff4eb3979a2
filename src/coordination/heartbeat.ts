/**
 * One heartbeat per process for every lease it holds (folder locks, claims, Redis leases, the Redis probe):
 * `holdLease(renew, everyMs)` calls `renew` every `everyMs` until the returned release is called. One unref'd timer
 * serves them all (it never keeps the process alive) and is armed for the earliest due lease only, so fake timers
 * drive it. A renewal still running when it is due again is skipped, never run twice at once; a renewal's rejection
 * is its own business (it reports what it must) and is swallowed here.
 */

interface Lease {
	renew: () => Promise<void>;
	everyMs: number;
	dueAt: number;
	running: boolean;
}

const leases = new Set<Lease>();
let timer: NodeJS.Timeout | undefined;
let timerAt = Number.POSITIVE_INFINITY;

/** Renews through `renew` every `everyMs` from now on; the returned function stops it (calling it again does nothing). */
export function holdLease(renew: () => Promise<void>, everyMs: number): () => void {
	const lease: Lease = { renew, everyMs, dueAt: Date.now() + everyMs, running: false };
	leases.add(lease);
	arm();
	return () => {
		if (leases.delete(lease)) arm();
	};
}

/** How many leases the heartbeat renews now (for tests and diagnostics). */
export function leasesHeld(): number {
	return leases.size;
}

/** Sets the one timer for the earliest due lease (none when no lease is held). */
function arm(): void {
	let next = Number.POSITIVE_INFINITY;
	for (const lease of leases) next = Math.min(next, lease.dueAt);
	if (next === timerAt && timer) return;
	clearTimeout(timer);
	timer = undefined;
	timerAt = next;
	if (next === Number.POSITIVE_INFINITY) return;
	timer = setTimeout(beat, Math.max(0, next - Date.now()));
	timer.unref?.();
}

function beat(): void {
	timer = undefined;
	const now = Date.now();
	for (const lease of leases) {
		if (lease.dueAt > now) continue;
		lease.dueAt = now + lease.everyMs;
		if (lease.running) continue;
		lease.running = true;
		void Promise.resolve()
			.then(lease.renew)
			.catch(() => undefined)
			.finally(() => (lease.running = false));
	}
	arm();
}
