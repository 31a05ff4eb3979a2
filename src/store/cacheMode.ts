/** The node option `cache`, as the store understands it; the rules a job follows under it: src/fluxN8n/paidJobRules.ts. */
import { z } from 'zod';

/** `reuse` (default): a stored result is served; `refresh`: always a new job; `off`: neither read nor write. */
export const cacheModeSchema = z.enum(['reuse', 'refresh', 'off']);
export type CacheMode = z.infer<typeof cacheModeSchema>;
export const DEFAULT_CACHE_MODE: CacheMode = 'reuse';

/** The slot's reason for a job the journal left at `submitting` (the body may have left): never resent silently. */
export const MAYBE_PAID_REASON =
	'This job was sent before n8n stopped and may already have been paid upstream; choose Refresh to send it again.';
