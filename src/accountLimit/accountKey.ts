/** The name of one account+model limit: a one-way hash of the account's secret (never the secret) and the model. */
import { createHash } from 'node:crypto';

/** Prefix of every limit name this package hands to redis-semaphore. */
export const LIMIT_KEY_PREFIX = 'flux-concurrent:limit:';
/** The Redis key of a limit: redis-semaphore prefixes its sorted set with `semaphore:`. */
export const LIMIT_REDIS_KEY_PREFIX = `semaphore:${LIMIT_KEY_PREFIX}`;

/** `<sha256(secret) first 32 hex>:<model>`; the same secret and model give the same name in every process. */
export function accountKey(secret: string, model: string): string {
	const digest = createHash('sha256').update('n8n-nodes-flux-concurrent/account-limit\0').update(secret).digest('hex').slice(0, 32);
	return `${digest}:${model}`;
}
