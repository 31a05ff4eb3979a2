/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/accountLimit knows nothing of n8n nodes: its errors reach the FLUX job, whose caller turns them into node errors. */
/**
 * Where the shared account limit lives, read from the environment with zod (pure: no globals).
 * `COMFLY_REDIS_URL` (redis:// or rediss://) wins; else n8n's own queue-mode settings, read as n8n reads
 * them (`EXECUTIONS_MODE=queue` plus `QUEUE_BULL_REDIS_HOST` / `_PORT` / `_USERNAME` / `_PASSWORD` / `_DB` /
 * `_TLS`, defaults localhost:6379 db 0); else no Redis (per-process limits only). The password is never
 * part of `describe`.
 */
import { z } from 'zod';

export interface RedisTarget {
	host: string;
	port: number;
	username?: string;
	password?: string;
	db: number;
	tls: boolean;
	/** Where the setting came from, for messages. */
	source: 'COMFLY_REDIS_URL' | 'QUEUE_BULL_REDIS';
}

type Env = Readonly<Record<string, string | undefined>>;

/** A configuration value that cannot be used: names the variable, never echoes a secret. */
export class AccountLimitConfigError extends Error {}

const port = z.coerce.number().int().min(1).max(65535);
const db = z.coerce.number().int().min(0).max(1_000_000);
const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const blankToUndefined = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

function parse<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, name: string, raw: string | undefined, fallback: T): T {
	const value = blankToUndefined(raw);
	if (value === undefined) return fallback;
	const parsed = schema.safeParse(value);
	if (!parsed.success) throw new AccountLimitConfigError(`${name} is not valid (${parsed.error.issues[0]?.message ?? 'bad value'})`);
	return parsed.data;
}

function fromUrl(text: string): RedisTarget {
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		throw new AccountLimitConfigError('COMFLY_REDIS_URL is not a URL (expected redis://[user:password@]host:port[/db])');
	}
	if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
		throw new AccountLimitConfigError(`COMFLY_REDIS_URL must start with redis:// or rediss:// (got ${url.protocol}//)`);
	}
	return {
		host: url.hostname.replace(/^\[|\]$/g, '') || 'localhost',
		port: parse(port, 'COMFLY_REDIS_URL port', url.port, 6379),
		username: blankToUndefined(decodeURIComponent(url.username)),
		password: blankToUndefined(decodeURIComponent(url.password)),
		db: parse(db, 'COMFLY_REDIS_URL database', url.pathname.replace(/^\//, ''), 0),
		tls: url.protocol === 'rediss:',
		source: 'COMFLY_REDIS_URL',
	};
}

function fromQueueMode(env: Env): RedisTarget {
	return {
		host: blankToUndefined(env.QUEUE_BULL_REDIS_HOST) ?? 'localhost',
		port: parse(port, 'QUEUE_BULL_REDIS_PORT', env.QUEUE_BULL_REDIS_PORT, 6379),
		username: blankToUndefined(env.QUEUE_BULL_REDIS_USERNAME),
		password: blankToUndefined(env.QUEUE_BULL_REDIS_PASSWORD),
		db: parse(db, 'QUEUE_BULL_REDIS_DB', env.QUEUE_BULL_REDIS_DB, 0),
		tls: parse(flag, 'QUEUE_BULL_REDIS_TLS', env.QUEUE_BULL_REDIS_TLS, false),
		source: 'QUEUE_BULL_REDIS',
	};
}

/** The Redis to share limits through, or undefined (none configured). Throws AccountLimitConfigError on a bad value. */
export function readRedisTarget(env: Env): RedisTarget | undefined {
	const url = blankToUndefined(env.COMFLY_REDIS_URL);
	if (url !== undefined) return fromUrl(url);
	if (blankToUndefined(env.EXECUTIONS_MODE) === 'queue') return fromQueueMode(env);
	return undefined;
}

/** `host:port/db` and where it came from: never the password. */
export function describeRedisTarget(target: RedisTarget): string {
	return `${target.tls ? 'rediss' : 'redis'}://${target.host}:${target.port}/${target.db} (from ${target.source})`;
}
