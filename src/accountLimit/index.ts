/** Account-wide limits: adaptive (AIMD on 429s) in every process, shared across processes through Redis leases. */
export { type Grant, type GrantOutcome, type AdaptiveLimitOptions, type AdaptiveLimitStats, AdaptiveLimit, DEFAULT_DECREASE } from './adaptiveLimit';
export { type HeaderBag, type RateLimitHint, MAX_HINT_WAIT_MS, readRateLimitHint } from './rateLimitHeaders';
export { LIMIT_KEY_PREFIX, LIMIT_REDIS_KEY_PREFIX, limitName } from './limitName';
export { type AccountLimiterOptions, AccountLimiter, createAccountLimiter } from './accountLimiter';
