/** What a run does with a job key given its latest journal record and the node's `cache` option (pure). */
import { z } from 'zod';
import type { JournalRecord } from './journal';

/** The node option `cache`: `reuse` (default), `refresh` (always a new job), `off` (neither read nor write). */
export const cacheModeSchema = z.enum(['reuse', 'refresh', 'off']);
export type CacheMode = z.infer<typeof cacheModeSchema>;
export const DEFAULT_CACHE_MODE: CacheMode = 'reuse';

/**
 * - `new`: send a new job (nothing journaled, a final failure, or `refresh`);
 * - `reattach`: acknowledged upstream but not stored: poll that upstream task (any mode but `refresh`);
 * - `stored`: read the result from the store (`reuse` only);
 * - `maybe_paid`: left at `submitting` (crash between send and acknowledgement): fail the slot with
 *   `MAYBE_PAID_REASON`, never resend silently (any mode but `refresh`).
 */
export type ResumeDecision = 'new' | 'reattach' | 'stored' | 'maybe_paid';

/** The slot's reason for `maybe_paid`. */
export const MAYBE_PAID_REASON =
	'This job was sent before n8n stopped and may already have been paid upstream; choose Refresh to send it again.';

export function resumeDecision(record: Pick<JournalRecord, 'state'> | undefined, cacheMode: CacheMode): ResumeDecision {
	if (cacheMode === 'refresh' || record === undefined) return 'new';
	switch (record.state) {
		case 'submitting':
			return 'maybe_paid';
		case 'submitted':
			return 'reattach';
		case 'stored':
			return cacheMode === 'reuse' ? 'stored' : 'new';
		case 'failed':
			return 'new';
	}
}
