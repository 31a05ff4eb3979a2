/**
 * How long this process's event loop was held up lately: the longest delay Node's event-loop monitor
 * (`perf_hooks.monitorEventLoopDelay`, a native unref'd timer) saw in the last one to two windows. A Redis command
 * that missed its deadline while the loop was held up may have had its reply waiting unread (timers fire before
 * replies are read): that lateness is this process's, not Redis's. A monitor sees a hold-up only from its second
 * tick on (a reset forgets the first), so two run side by side, reset in turn each window, and one is reset only
 * when the other has a sample: one of them always sees a hold-up.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

import { holdLease } from '../coordination/heartbeat';

/** How often each monitor samples (ms): far below any deadline it judges. */
const RESOLUTION_MS = 50;

export class LoopDelay {
	private readonly monitors: [IntervalHistogram, IntervalHistogram];
	/** The monitor reset next (the one that has watched longer). */
	private older = 0;
	private readonly stopRotating: () => void;

	/** Watches from now on; each `windowMs` the monitor that has watched longer starts again (see rotate). */
	constructor(windowMs: number) {
		this.monitors = [monitorEventLoopDelay({ resolution: RESOLUTION_MS }), monitorEventLoopDelay({ resolution: RESOLUTION_MS })];
		for (const monitor of this.monitors) monitor.enable();
		this.stopRotating = holdLease(async () => this.rotate(), windowMs);
	}

	/** Whether a hold-up would be seen yet (a monitor has a sample: about two resolutions after the start). */
	sampled(): boolean {
		return this.monitors.some((monitor) => monitor.count > 0);
	}

	/** The longest delay seen (ms) in the last one to two windows. */
	longestMs(): number {
		return Math.max(...this.monitors.map((monitor) => monitor.max)) / 1e6;
	}

	close(): void {
		this.stopRotating();
		for (const monitor of this.monitors) monitor.disable();
	}

	/** Resets the monitor that has watched longer, unless the other has no sample yet (it would see no hold-up now). */
	private rotate(): void {
		if (this.monitors[1 - this.older].count === 0) return;
		this.monitors[this.older].reset();
		this.older = 1 - this.older;
	}
}
