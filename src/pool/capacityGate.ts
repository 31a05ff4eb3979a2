import { waitUnlessAborted } from './abortable';
import { PoolCancelledError } from './errors';

/** Admits at most `capacity` holders at once; further acquirers wait in FIFO order. */
export class CapacityGate {
	private held = 0;
	/** Waiting acquirers in arrival order, with the signal each one waits under. */
	private readonly waiters = new Map<(value: void) => void, AbortSignal | undefined>();

	/** `label` names the gate in the cancellation message, e.g. "image pool". */
	constructor(
		readonly capacity: number,
		private readonly label: string,
	) {
		if (!Number.isInteger(capacity) || capacity < 1) {
			throw new RangeError(`CapacityGate capacity must be a positive integer, got ${capacity}`);
		}
	}

	/** Slots currently held. */
	get inUse(): number {
		return this.held;
	}

	/** Acquirers currently waiting. */
	get waiting(): number {
		return this.waiters.size;
	}

	/** Resolves once a slot is held; rejects with PoolCancelledError if `signal` aborts first. */
	acquire(signal?: AbortSignal): Promise<void> {
		if (!signal?.aborted && this.held < this.capacity && this.waiters.size === 0) {
			this.held++;
			return Promise.resolve();
		}
		return waitUnlessAborted<void>(
			signal,
			() => new PoolCancelledError(`Cancelled while waiting for a free slot in the ${this.label}.`),
			(settle) => {
				this.waiters.set(settle, signal);
				return () => this.waiters.delete(settle);
			},
		);
	}

	/**
	 * Frees a slot, handing it straight to the oldest waiter if there is one. A waiter whose
	 * signal has already fired is passed over: its own abort listener rejects it (it may not
	 * have run yet when a release happens inside the same abort dispatch).
	 */
	release(): void {
		for (const [settle, signal] of this.waiters) {
			if (signal?.aborted) continue;
			this.waiters.delete(settle);
			settle();
			return;
		}
		if (this.held === 0) throw new Error('CapacityGate.release() called more often than acquire()');
		this.held--;
	}
}
