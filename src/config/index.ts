/** The package's configuration: every environment variable, read once per process into typed settings. */
export { type Env, type ReadTextFile, type Warn, LOG_PREFIX } from './env';
export {
	type PoolConfig,
	type PoolSize,
	DEFAULT_IMAGE_WORKERS,
	DEFAULT_RESULT_MAX_MB,
	DEFAULT_RESULT_TTL_SECONDS,
	DEFAULT_VIDEO_WORKERS,
	readPoolConfig,
	readResultTtlMs,
} from './poolSettings';
export { type StoreConfig, type StoreConfigOptions, DEFAULT_STORE_MAX_MB, DEFAULT_STORE_TTL_DAYS, STORE_SUBFOLDER, n8nFolder, readStoreConfig, storeDir } from './storeSettings';
export { DEFAULT_POLL_RATE, MAX_POLL_RATE, readPollRate } from './pollRateSetting';
export { type RedisTarget, RedisConfigError, readRedisTarget, redisAddress } from './redisTarget';
export { type ReadSettingsOptions, type RedisSettings, type Settings, WITHOUT_REDIS, readSettings, reloadSettings, settings } from './settings';
