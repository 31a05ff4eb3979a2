import * as path from 'node:path';
import { DEFAULT_STORE_MAX_MB, DEFAULT_STORE_TTL_DAYS, n8nFolder, readStoreConfig } from '../../src/config';

const MB = 1024 * 1024;
const DAY = 24 * 3600 * 1000;
const posix = { platform: 'linux' as const, cwd: '/srv/cwd' };

function read(env: Record<string, string | undefined>) {
	const warnings: string[] = [];
	const config = readStoreConfig(env, (m) => warnings.push(m), posix);
	return { config, warnings };
}

describe('readStoreConfig', () => {
	it('defaults: <HOME>/.n8n/flux-concurrent, 2048 MB, 30 days, no warning', () => {
		const { config, warnings } = read({ HOME: '/home/ann' });
		expect(config).toEqual({
			dir: '/home/ann/.n8n/flux-concurrent',
			maxBytes: DEFAULT_STORE_MAX_MB * MB,
			ttlMs: DEFAULT_STORE_TTL_DAYS * DAY,
			spareRecentMs: 3600 * 1000,
		});
		expect(warnings).toEqual([]);
	});

	it('spares results younger than the pool result TTL (COMFLY_RESULT_TTL_SECONDS) from the size bound', () => {
		expect(read({ HOME: '/h', COMFLY_RESULT_TTL_SECONDS: '120' }).config.spareRecentMs).toBe(120 * 1000);
	});

	it('follows n8n: N8N_USER_FOLDER gets .n8n appended, like @n8n/config getN8nFolder', () => {
		expect(read({ N8N_USER_FOLDER: '/data', HOME: '/home/ann' }).config.dir).toBe('/data/.n8n/flux-concurrent');
		expect(n8nFolder({ N8N_USER_FOLDER: '/data' }, posix)).toBe('/data/.n8n');
		expect(n8nFolder({}, posix)).toBe('/srv/cwd/.n8n'); // no HOME: n8n falls back to the working directory
		expect(n8nFolder({ USERPROFILE: 'C:\\Users\\ann' }, { platform: 'win32', cwd: '/srv/cwd' })).toBe(
			path.resolve('/srv/cwd', path.join('C:\\Users\\ann', '.n8n')),
		);
	});

	it('COMFLY_STORE_DIR moves the store as given (relative to the working directory); blank means unset', () => {
		expect(read({ COMFLY_STORE_DIR: '/var/flux', HOME: '/home/ann' }).config.dir).toBe('/var/flux');
		expect(read({ COMFLY_STORE_DIR: 'store', HOME: '/h' }).config.dir).toBe('/srv/cwd/store');
		expect(read({ COMFLY_STORE_DIR: '  ', HOME: '/h' }).config.dir).toBe('/h/.n8n/flux-concurrent');
	});

	it('reads the bounds and clamps out-of-range values, with one warning each', () => {
		expect(read({ HOME: '/h', COMFLY_STORE_MAX_MB: '100', COMFLY_STORE_TTL_DAYS: ' 7 ' }).config).toMatchObject({
			maxBytes: 100 * MB,
			ttlMs: 7 * DAY,
		});
		const clamped = read({ HOME: '/h', COMFLY_STORE_MAX_MB: '0', COMFLY_STORE_TTL_DAYS: '-3' });
		expect(clamped.config).toMatchObject({
			maxBytes: 1 * MB,
			ttlMs: 1 * DAY,
		});
		expect(clamped.warnings).toEqual([expect.stringContaining('COMFLY_STORE_MAX_MB="0" is outside 1–'), expect.stringContaining('COMFLY_STORE_TTL_DAYS="-3" is outside 1–')]);
	});

	it('garbage -> one warning naming the variable, and the default', () => {
		const { config, warnings } = read({ HOME: '/h', COMFLY_STORE_MAX_MB: 'lots', COMFLY_STORE_TTL_DAYS: '1.5' });
		expect(config.maxBytes).toBe(DEFAULT_STORE_MAX_MB * MB);
		expect(config.ttlMs).toBe(DEFAULT_STORE_TTL_DAYS * DAY);
		expect(warnings).toHaveLength(2);
		expect(warnings[0]).toContain('COMFLY_STORE_MAX_MB="lots"');
		expect(warnings[1]).toContain('COMFLY_STORE_TTL_DAYS="1.5"');
	});
});
