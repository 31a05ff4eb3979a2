/**
 * One heartbeat for the whole process: every held lease (a claim, a ledger reservation) is renewed from one
 * unref'd timer, each at its own period. A renewal still running when its lease is due again is not started twice;
 * a renewal that rejects is the lease's own business (it is called again at its next beat). The returned function
 * lets the lease go: it is not renewed after that.
 */

interface Lease {
	renew: () => Promise<void>;
	everyMs: number;
	due: number;
	running: boolean;
}

const leases = new Set<Lease>();
let timer: NodeJS.Timeout | undefined;

/** Renews `renew` every `everyMs` until the returned function is called. */
export function holdLease(renew: () => Promise<void>, everyMs: number): () => void {
	const lease: Lease = { renew, everyMs, due: Date.now() + everyMs, running: false };
	leases.add(lease);
	schedule();
	return () => {
		leases.delete(lease);
		schedule();
	};
}

/** Arms the one timer for the earliest lease due (none held: no timer). */
function schedule(): void {
	clearTimeout(timer);
	timer = undefined;
	if (leases.size === 0) return;
	const next = Math.min(...[...leases].map((lease) => lease.due));
	timer = setTimeout(beat, Math.max(0, next - Date.now()));
	timer.unref();
}

function beat(): void {
	const now = Date.now();
	for (const lease of leases) {
		if (lease.due > now) continue;
		lease.due = now + lease.everyMs;
		if (lease.running) continue;
		lease.running = true;
		void lease
			.renew()
			.catch(() => undefined)
			.finally(() => (lease.running = false));
	}
	schedule();
}
