/**
 * The shared Redis: one connection per process with a deadline on every command and a fallback when Redis is
 * gone, silent or refusing the credentials (see sharedRedis.ts). Used by the account limit, the journal's mirror,
 * the claims and the spend ledger.
 */
export { type RedisResult, type SharedRedisOptions, SharedRedis } from './sharedRedis';
export { processRedis, redisWarnings } from './processRedis';
export { RestartWatch } from './serverRestart';
