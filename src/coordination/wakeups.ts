/**
 * Waiting for what another holder has (a claim, a folder lock, an account's spend ledger): a pause that grows from
 * `minMs` to `maxMs` (×1.5 per try), cut short when the same key is woken in this process (a claim released, a
 * ledger changed), and ended by the caller's abort (rejects with the signal's reason, leaving no listener behind).
 */
import { EventEmitter } from 'node:events';

/** Wake-ups in this process, by key: a waiter on the same key tries again at once. */
export class Wakeups {
	private readonly events = new EventEmitter();

	constructor() {
		this.events.setMaxListeners(0); // one listener per waiting job, removed when its pause ends
	}

	wake(key: string): void {
		this.events.emit(key);
	}

	/** Resolves after `ms`, or when `key` is woken here; rejects with the signal's reason on abort. */
	pause(key: string, ms: number, signal?: AbortSignal): Promise<void> {
		return new Promise<void>((resolve, reject) => {
			if (signal?.aborted) return reject(signal.reason);
			const done = () => {
				clearTimeout(timer);
				this.events.off(key, done);
				signal?.removeEventListener('abort', aborted);
				resolve();
			};
			const aborted = () => {
				done();
				reject(signal?.reason);
			};
			const timer = setTimeout(done, ms);
			this.events.on(key, done);
			signal?.addEventListener('abort', aborted, { once: true });
		});
	}
}

/** The pauses of one wait: minMs, ×1.5 each time, at most maxMs. */
export function backoff(minMs: number, maxMs: number): () => number {
	let next = minMs;
	return () => {
		const now = next;
		next = Math.min(maxMs, Math.ceil(next * 1.5));
		return now;
	};
}
