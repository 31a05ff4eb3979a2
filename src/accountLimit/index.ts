/** Account-wide limits: adaptive (AIMD on 429s) in every process, shared across processes through Redis leases. */
export { type Grant, type GrantOutcome, type AdaptiveLimitOptions, AdaptiveLimit, DEFAULT_DECREASE } from './adaptiveLimit';
export { LIMIT_REDIS_KEY_PREFIX } from './redisLeases';
export { type HeaderBag, AccountLimiter, createAccountLimiter, limitName, statedLimit } from './accountLimiter';
