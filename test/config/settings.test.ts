/**
 * The one configuration module: every variable the package reads, one warning per bad value (naming the
 * variable, the value and the default used, never a password or a URL's user info), read once per process,
 * and nothing else in src/ reading the environment.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { LoggerProxy } from 'n8n-workflow';
import '../../src/n8n/log'; // the package's log goes to n8n's LoggerProxy, as when n8n loads a node

import { readSettings, reloadSettings, settings } from '../../src/config';
import { resetProcessWide } from '../../src/processWide';

const posix = { platform: 'linux' as const, cwd: '/srv/cwd' };

function read(env: Record<string, string | undefined>) {
	const warnings: string[] = [];
	const result = readSettings(env, (m) => warnings.push(m), { ...posix, readFile: () => 'from-a-file-pw' });
	return { settings: result, warnings };
}

describe('readSettings', () => {
	it('nothing set: the defaults of PRODUCT.md, no Redis, no warning', () => {
		expect(read({ HOME: '/home/ann' })).toEqual({
			settings: {
				pool: { image: { workers: 30, pending: 30 }, video: { workers: 10, pending: 10 }, resultTtlMs: 3_600_000, resultMaxBytes: 512 * 1024 * 1024 },
				store: { dir: '/home/ann/.n8n/flux-concurrent', maxBytes: 2048 * 1024 * 1024, ttlMs: 30 * 24 * 3600 * 1000, spareRecentMs: 3_600_000 },
				pollRate: 25,
				redis: { target: undefined },
			},
			warnings: [],
		});
	});

	it('every bad variable: exactly one warning each, naming it, its value and the default used', () => {
		const bad = {
			COMFLY_IMAGE_CONCURRENCY: 'lots',
			COMFLY_IMAGE_PENDING: 'some',
			COMFLY_VIDEO_CONCURRENCY: '2.5',
			COMFLY_VIDEO_PENDING: 'x',
			COMFLY_RESULT_TTL_SECONDS: 'forever',
			COMFLY_RESULT_MAX_MB: '1e3',
			COMFLY_STORE_MAX_MB: 'big',
			COMFLY_STORE_TTL_DAYS: 'month',
			COMFLY_POLL_RATE: 'fast',
		};
		const { settings: s, warnings } = read({ HOME: '/h', ...bad, EXECUTIONS_MODE: 'queue', QUEUE_BULL_REDIS_DB: 'first' });
		const names = [...Object.keys(bad), 'QUEUE_BULL_REDIS_DB'];
		expect(warnings).toHaveLength(names.length);
		for (const name of names) expect(warnings.filter((w) => w.includes(name))).toHaveLength(1);
		expect(warnings).toEqual(
			expect.arrayContaining([
				'[n8n-nodes-flux-concurrent] COMFLY_IMAGE_CONCURRENCY="lots" is not an integer; using 30.',
				'[n8n-nodes-flux-concurrent] COMFLY_RESULT_TTL_SECONDS="forever" is not an integer; using 3600.',
				'[n8n-nodes-flux-concurrent] COMFLY_STORE_MAX_MB="big" is not an integer; using 2048.',
				'[n8n-nodes-flux-concurrent] COMFLY_POLL_RATE="fast" is not a whole number of polls per second from 1 to 1000; using 25.',
				'QUEUE_BULL_REDIS_DB is not valid ("first" is not a database number from 0 to 1000000); Redis is not used: the account-wide limit is per process and the journal is local.',
			]),
		);
		expect(s.pool.resultTtlMs).toBe(3_600_000);
		expect(s.store.spareRecentMs).toBe(3_600_000); // one reading of COMFLY_RESULT_TTL_SECONDS serves both
		expect(s.redis).toEqual({ problem: warnings[warnings.length - 1] });
	});

	it('never echoes a password or a URL’s user info', () => {
		for (const env of [
			{ COMFLY_REDIS_URL: 'http://ann-the-admin:Sup3r-Secret-pw@cache:6379' },
			{ COMFLY_REDIS_URL: 'redis://ann-the-admin:Sup3r-Secret-pw@cache:port' },
			{ COMFLY_REDIS_URL: 'redis://ann-the-admin:Sup3r-Secret-pw%zz@cache:6379' },
			{ COMFLY_REDIS_URL: 'Sup3r-Secret-pw' },
			{ EXECUTIONS_MODE: 'queue', QUEUE_BULL_REDIS_PASSWORD: 'Sup3r-Secret-pw', QUEUE_BULL_REDIS_PORT: 'six' },
		]) {
			const { warnings } = read(env);
			expect(warnings).toHaveLength(1);
			expect(warnings[0]).toMatch(/^(COMFLY_REDIS_URL|QUEUE_BULL_REDIS_PORT)\b.*Redis is not used/);
			expect(warnings[0]).not.toContain('Sup3r-Secret-pw');
			expect(warnings[0]).not.toContain('ann-the-admin');
		}
	});

	it('n8n queue mode, *_FILE variants read through the given reader; COMFLY_REDIS_URL wins', () => {
		expect(read({ EXECUTIONS_MODE: 'queue', QUEUE_BULL_REDIS_HOST: 'redis', QUEUE_BULL_REDIS_PASSWORD_FILE: '/run/secrets/pw' }).settings.redis.target).toMatchObject({
			host: 'redis',
			port: 6379,
			password: 'from-a-file-pw',
			source: 'QUEUE_BULL_REDIS',
		});
		expect(read({ EXECUTIONS_MODE: 'queue', COMFLY_REDIS_URL: 'redis://127.0.0.1:7000/1' }).settings.redis.target).toMatchObject({ port: 7000, db: 1, source: 'COMFLY_REDIS_URL' });
	});
});

describe('settings(): read once per process', () => {
	const saved = { ...process.env };
	afterEach(async () => {
		process.env = { ...saved };
		await resetProcessWide(['settings']);
	});

	it('one read of process.env (one warning in n8n’s log); later changes need reloadSettings()', () => {
		const warn = jest.fn();
		LoggerProxy.init({ error: jest.fn(), warn, info: jest.fn(), debug: jest.fn() });
		process.env.COMFLY_IMAGE_CONCURRENCY = 'many';
		process.env.COMFLY_POLL_RATE = '7';
		void resetProcessWide(['settings']);
		const first = settings();
		expect(first.pollRate).toBe(7);
		expect(settings()).toBe(first);
		expect(warn).toHaveBeenCalledTimes(1);
		expect(warn).toHaveBeenCalledWith('[n8n-nodes-flux-concurrent] COMFLY_IMAGE_CONCURRENCY="many" is not an integer; using 30.', expect.any(Object));

		process.env.COMFLY_POLL_RATE = '9';
		expect(settings().pollRate).toBe(7);
		expect(reloadSettings().pollRate).toBe(9);
		expect(settings().pollRate).toBe(9);
	});
});

describe('nothing else reads the environment', () => {
	it('process.env appears in src/ only inside src/config', () => {
		const offenders: string[] = [];
		const walk = (dir: string): void => {
			for (const name of readdirSync(dir)) {
				const path = join(dir, name);
				if (statSync(path).isDirectory()) walk(path);
				else if (path.endsWith('.ts') && !path.includes(join('src', 'config')) && /process\.env\b/.test(readFileSync(path, 'utf8'))) offenders.push(path);
			}
		};
		walk(join(__dirname, '../../src'));
		expect(offenders).toEqual([]);
	});
});
