/** Reading the Redis target and rate-limit headers: n8n's queue-mode variables, the URL, bad values named, no password echoed. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { accountId } from '../../src/account';
import { limitName, statedLimit } from '../../src/accountLimit';
import { RedisConfigError, readRedisTarget, readSettings, redisAddress } from '../../src/config';

describe('readRedisTarget', () => {
	it('no Redis without COMFLY_REDIS_URL or queue mode', () => {
		expect(readRedisTarget({})).toBeUndefined();
		expect(readRedisTarget({ EXECUTIONS_MODE: 'regular', QUEUE_BULL_REDIS_HOST: 'x' })).toBeUndefined();
	});

	it('n8n queue mode: QUEUE_BULL_REDIS_* as n8n reads them (defaults localhost:6379/0)', () => {
		expect(readRedisTarget({ EXECUTIONS_MODE: 'queue' })).toMatchObject({ host: 'localhost', port: 6379, db: 0, tls: false });
		const t = readRedisTarget({
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: '6390',
			QUEUE_BULL_REDIS_USERNAME: 'u',
			QUEUE_BULL_REDIS_PASSWORD: 'hunter2-secret',
			QUEUE_BULL_REDIS_DB: '3',
			QUEUE_BULL_REDIS_TLS: 'true',
		});
		expect(t).toMatchObject({ host: '127.0.0.1', port: 6390, username: 'u', password: 'hunter2-secret', db: 3, tls: true });
		expect(redisAddress(t!)).not.toContain('hunter2');
	});

	it('COMFLY_REDIS_URL wins, with credentials, database and TLS', () => {
		const t = readRedisTarget({ COMFLY_REDIS_URL: 'rediss://me:p%40ss@127.0.0.1:7000/2', EXECUTIONS_MODE: 'queue' });
		expect(t).toMatchObject({ host: '127.0.0.1', port: 7000, username: 'me', password: 'p@ss', db: 2, tls: true, source: 'COMFLY_REDIS_URL' });
		expect(redisAddress(t!)).toBe('127.0.0.1:7000');
	});

	it('bad values name the variable and never echo the password', () => {
		expect(() => readRedisTarget({ COMFLY_REDIS_URL: 'http://x:secretpw@h' })).toThrow(/COMFLY_REDIS_URL must start with redis:\/\//);
		expect(() => readRedisTarget({ COMFLY_REDIS_URL: 'not a url secretpw' })).toThrow(/^COMFLY_REDIS_URL is not a URL/);
		expect(() => readRedisTarget({ COMFLY_REDIS_URL: 'not a url secretpw' })).not.toThrow(/secretpw/);
		expect(() => readRedisTarget({ EXECUTIONS_MODE: 'queue', QUEUE_BULL_REDIS_PORT: 'abc' })).toThrow(/QUEUE_BULL_REDIS_PORT/);
		expect(() => readRedisTarget({ EXECUTIONS_MODE: 'queue', QUEUE_BULL_REDIS_TLS: 'yes' })).toThrow(/QUEUE_BULL_REDIS_TLS/);
	});
});

describe('readRedisTarget: hostile values', () => {
	it('a password with broken percent-encoding is a config error naming the variable (not a URIError failing every job)', () => {
		expect(() => readRedisTarget({ COMFLY_REDIS_URL: 'redis://:50%zz-Secret@127.0.0.1:6379' })).toThrow(RedisConfigError);
		expect(() => readRedisTarget({ COMFLY_REDIS_URL: 'redis://:50%zz-Secret@127.0.0.1:6379' })).toThrow(/^COMFLY_REDIS_URL password/);
		expect(() => readRedisTarget({ COMFLY_REDIS_URL: 'redis://:50%zz-Secret@127.0.0.1:6379' })).not.toThrow(/Secret/);
		const warnings: string[] = [];
		const settings = readSettings({ COMFLY_REDIS_URL: 'redis://u%zz:pw@127.0.0.1:6379' }, (m) => warnings.push(m));
		expect(warnings).toEqual([expect.stringMatching(/^COMFLY_REDIS_URL user name .*per process/)]);
		expect(settings.redis).toEqual({ problem: warnings[0] });
	});

	it('as n8n reads them: booleans in any case, *_FILE variants (Docker secrets), the variable itself winning', () => {
		expect(readRedisTarget({ EXECUTIONS_MODE: 'queue', QUEUE_BULL_REDIS_TLS: 'TRUE' })?.tls).toBe(true);
		expect(readRedisTarget({ EXECUTIONS_MODE: 'queue', QUEUE_BULL_REDIS_TLS: 'False' })?.tls).toBe(false);
		const dir = mkdtempSync(path.join(os.tmpdir(), 'redis-secret-'));
		const file = path.join(dir, 'pw');
		writeFileSync(file, 'from-a-file-secret\n');
		try {
			expect(readRedisTarget({ EXECUTIONS_MODE: 'queue', QUEUE_BULL_REDIS_PASSWORD_FILE: file })?.password).toBe('from-a-file-secret');
			expect(readRedisTarget({ EXECUTIONS_MODE: 'queue', QUEUE_BULL_REDIS_PASSWORD: 'direct', QUEUE_BULL_REDIS_PASSWORD_FILE: file })?.password).toBe('direct');
			const missing = path.join(dir, 'nothing-here');
			expect(() => readRedisTarget({ EXECUTIONS_MODE: 'queue', QUEUE_BULL_REDIS_PASSWORD_FILE: missing })).toThrow(/^QUEUE_BULL_REDIS_PASSWORD_FILE could not be read/);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});

describe('statedLimit', () => {
	it('reads X-RateLimit-Limit, ignoring what does not parse', () => {
		expect(statedLimit({ 'retry-after': '2', 'x-ratelimit-limit': '24', 'x-ratelimit-remaining': '0' })).toBe(24);
		expect(statedLimit({ 'x-ratelimit-limit': [' 12 ', '30'] })).toBe(12);
		expect(statedLimit({ 'x-ratelimit-limit': '-1' })).toBeUndefined();
		expect(statedLimit({ 'x-ratelimit-limit': '0' })).toBeUndefined();
		expect(statedLimit({ 'retry-after': 'soon' })).toBeUndefined();
	});
});

describe('limitName', () => {
	it('is stable, per model, and never contains the secret', () => {
		const account = (apiKey: string) => accountId({ apiStyle: 'relay', baseUrl: 'https://relay.example', apiKey });
		const a = limitName(account('sk-secret-123'), 'flux-3-image');
		expect(a).toBe(limitName(account('sk-secret-123'), 'flux-3-image'));
		expect(a).not.toBe(limitName(account('sk-secret-123'), 'flux-3-video'));
		expect(a).not.toBe(limitName(account('sk-other'), 'flux-3-image'));
		expect(a).not.toContain('secret');
	});
});
