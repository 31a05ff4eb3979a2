/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/config knows nothing of n8n nodes: a RedisConfigError is caught in settings.ts and becomes one warning. */
/**
 * Where the shared Redis is, read with zod (pure: no globals). `COMFLY_REDIS_URL` (redis:// or rediss://) wins;
 * else n8n's own queue-mode settings, read as n8n reads them (`EXECUTIONS_MODE=queue` plus `QUEUE_BULL_REDIS_HOST` /
 * `_PORT` / `_USERNAME` / `_PASSWORD` / `_DB` / `_TLS`, defaults localhost:6379 db 0; like n8n, a `<NAME>_FILE`
 * variable is read when `<NAME>` is unset, and booleans are true/false/1/0 in any case); else no Redis.
 * A bad value throws a {@link RedisConfigError} naming the variable; its text never holds a password or a URL.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

import type { Env, ReadTextFile } from './env';

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

/** A Redis setting that cannot be used: names the variable, never echoes a secret (nor a URL: the log would hide it). */
export class RedisConfigError extends Error {}

const MAX_DB = 1_000_000;
const port = z.coerce.number().int().min(1).max(65535);
const db = z.coerce.number().int().min(0).max(MAX_DB);
const flag = z
	.string()
	.transform((v) => v.toLowerCase())
	.pipe(z.enum(['true', 'false', '1', '0']))
	.transform((v) => v === 'true' || v === '1');
const blankToUndefined = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

function parse<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, name: string, expected: string, raw: string | undefined, fallback: T): T {
	const value = blankToUndefined(raw);
	if (value === undefined) return fallback;
	const parsed = schema.safeParse(value);
	if (!parsed.success) throw new RedisConfigError(`${name} is not valid (${JSON.stringify(value.slice(0, 40))} is not ${expected})`);
	return parsed.data;
}

/** A percent-decoded part of the URL; broken encoding is a config error naming the part, never echoing it. */
function decoded(part: string, what: string): string | undefined {
	try {
		return blankToUndefined(decodeURIComponent(part));
	} catch {
		throw new RedisConfigError(`COMFLY_REDIS_URL ${what} is not valid percent-encoding (write % as %25)`);
	}
}

/** `env[name]`, else the contents of the file `env[name_FILE]` names (as n8n reads its settings). */
function envOrFile(env: Env, name: string, readFile: ReadTextFile): string | undefined {
	if (env[name] !== undefined) return env[name];
	const file = blankToUndefined(env[`${name}_FILE`]);
	if (file === undefined) return undefined;
	try {
		return readFile(file);
	} catch (error) {
		const code = (error as { code?: unknown }).code;
		throw new RedisConfigError(`${name}_FILE could not be read (${typeof code === 'string' ? code : 'unreadable'})`);
	}
}

const PORT_TEXT = 'a port number from 1 to 65535';
const DB_TEXT = `a database number from 0 to ${MAX_DB}`;

function fromUrl(text: string): RedisTarget {
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		throw new RedisConfigError('COMFLY_REDIS_URL is not a URL: expected redis:// or rediss:// followed by [user:password@]host[:port][/db]');
	}
	if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
		const scheme = /^[a-z][a-z0-9+.-]{0,15}:$/i.test(url.protocol) ? url.protocol : 'something else';
		throw new RedisConfigError(`COMFLY_REDIS_URL must start with redis:// or rediss:// (it starts with ${scheme})`);
	}
	return {
		host: url.hostname.replace(/^\[|\]$/g, '') || 'localhost',
		port: parse(port, 'COMFLY_REDIS_URL port', PORT_TEXT, url.port, 6379),
		username: decoded(url.username, 'user name'),
		password: decoded(url.password, 'password'),
		db: parse(db, 'COMFLY_REDIS_URL database', DB_TEXT, url.pathname.replace(/^\//, ''), 0),
		tls: url.protocol === 'rediss:',
		source: 'COMFLY_REDIS_URL',
	};
}

function fromQueueMode(env: Env, readFile: ReadTextFile): RedisTarget {
	const read = (name: string) => envOrFile(env, name, readFile);
	return {
		host: blankToUndefined(read('QUEUE_BULL_REDIS_HOST')) ?? 'localhost',
		port: parse(port, 'QUEUE_BULL_REDIS_PORT', PORT_TEXT, read('QUEUE_BULL_REDIS_PORT'), 6379),
		username: blankToUndefined(read('QUEUE_BULL_REDIS_USERNAME')),
		password: blankToUndefined(read('QUEUE_BULL_REDIS_PASSWORD')),
		db: parse(db, 'QUEUE_BULL_REDIS_DB', DB_TEXT, read('QUEUE_BULL_REDIS_DB'), 0),
		tls: parse(flag, 'QUEUE_BULL_REDIS_TLS', 'true, false, 1 or 0', read('QUEUE_BULL_REDIS_TLS'), false),
		source: 'QUEUE_BULL_REDIS',
	};
}

/** The Redis to share through, or undefined (none configured). Throws RedisConfigError on a bad value. */
export function readRedisTarget(env: Env, readFile: ReadTextFile = (file) => readFileSync(file, 'utf8')): RedisTarget | undefined {
	const url = blankToUndefined(env.COMFLY_REDIS_URL);
	if (url !== undefined) return fromUrl(url);
	if (blankToUndefined(env.EXECUTIONS_MODE) === 'queue') return fromQueueMode(env, readFile);
	return undefined;
}

/** `host:port` (IPv6 in brackets) for messages: never a password, never a URL (the log replaces URLs by [URL]). */
export function redisAddress(target: Pick<RedisTarget, 'host' | 'port'>): string {
	return `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
}
