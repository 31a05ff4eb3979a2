import { readRedisTarget } from '../../src/config';
import { SharedRedis, type SharedRedisOptions } from '../../src/redis';

/** A SharedRedis of a test's own on `url` (redis://…), as the package builds one from COMFLY_REDIS_URL: close it. */
export function sharedRedisAt(url: string, options: SharedRedisOptions = {}): SharedRedis {
	const target = readRedisTarget({ COMFLY_REDIS_URL: url });
	if (target === undefined) throw new Error(`not a Redis URL: ${url}`);
	return new SharedRedis(target, options);
}
