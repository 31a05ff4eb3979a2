import { setMaxListeners } from 'node:events';

import type { WorkerPool } from '../pool';

/** Every admitted job and every collector slot may listen to the execution's signal. */
export const MAX_SIGNAL_LISTENERS = 1_000;

/**
 * When the n8n execution is cancelled, drop its queued jobs and abort its
 * running ones. Safe to call once per node run: the listener is removed with
 * the execution's signal (once: true) and does nothing for an unknown owner.
 */
export function watchExecutionCancel(
	signal: AbortSignal | undefined,
	owner: string | undefined,
	pool: WorkerPool,
): void {
	if (!signal || owner === undefined) return;
	setMaxListeners(MAX_SIGNAL_LISTENERS, signal);
	if (signal.aborted) {
		pool.cancelOwner(owner, 'The n8n execution was cancelled');
		return;
	}
	signal.addEventListener('abort', () => pool.cancelOwner(owner, 'The n8n execution was cancelled'), {
		once: true,
	});
}
