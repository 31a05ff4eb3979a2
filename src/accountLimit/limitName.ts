/** The name of one account+model limit: the account's id (src/account: never the secret) and the model. */

/** Prefix of every limit name this package hands to redis-semaphore. */
export const LIMIT_KEY_PREFIX = 'flux-concurrent:limit:';
/** The Redis key of a limit: redis-semaphore prefixes its sorted set with `semaphore:`. */
export const LIMIT_REDIS_KEY_PREFIX = `semaphore:${LIMIT_KEY_PREFIX}`;

/** `<accountId>:<model>`; the same account and model give the same name in every process. */
export function limitName(accountId: string, model: string): string {
	return `${accountId}:${model}`;
}
