/** The package's configuration: every environment variable, read once per process into typed settings. */
export { type Env, type ReadTextFile, type Warn } from './env';
export { type PoolConfig, type PoolSize, readPoolConfig } from './poolSettings';
export { type StoreConfig, type StoreConfigOptions, DEFAULT_STORE_MAX_MB, DEFAULT_STORE_TTL_DAYS, STORE_SUBFOLDER, n8nFolder, readStoreConfig, storeDir } from './storeSettings';
export { type RedisTarget, RedisConfigError, readRedisTarget, redisAddress } from './redisTarget';
export { type ReadSettingsOptions, type RedisSettings, type Settings, DEFAULT_POLL_RATE, WITHOUT_REDIS, readPollRate, readSettings, reloadSettings, settings } from './settings';
