import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { apiKeyHash } from '../../src/account';
import { cacacheBackend, getStore, openStore } from '../../src/store';
import { resetProcessWide } from '../../src/processWide';
import { useTempDir } from './tempStore';

const DAY = 24 * 3600 * 1000;
const temp = useTempDir();

const start = { jobId: 'j1', apiStyle: 'bfl', baseUrl: 'http://127.0.0.1:2', model: 'flux-3', apiKeyHash: apiKeyHash('k-123456') };
const meta = { mimeType: 'image/png', fileExtension: 'png' };

describe('openStore', () => {
	it('results and journal share one folder (created 0700 on first write) and one health', async () => {
		const dir = path.join(temp.dir, 'deep', 'store');
		const store = openStore({ dir, maxBytes: 1024 * 1024, ttlMs: DAY }, { warn: () => undefined });
		expect(await store.journal.submitting('k', start)).toBe(true);
		expect(await store.results.put('k', Buffer.from('img'), meta)).toBe(true);
		expect(await store.journal.stored('k')).toBe(true);
		expect(statSync(dir).mode & 0o777).toBe(0o700);
		expect(store.results.cacheDir).toBe(path.join(dir, 'results'));
		expect(store.journal.cacheDir).toBe(path.join(dir, 'journal'));
		expect(store.health()).toEqual({ ok: true });
	});

	it('an unusable folder warns ONCE for results and journal together, and health() says why', async () => {
		const file = path.join(temp.dir, 'occupied');
		writeFileSync(file, 'not a folder');
		const warnings: string[] = [];
		const store = openStore({ dir: file, maxBytes: 1024, ttlMs: DAY }, { warn: (m) => warnings.push(m) });
		expect(await store.journal.submitting('k', start)).toBe(false);
		expect(await store.results.put('k', Buffer.from('img'), meta)).toBe(false);
		expect(await store.results.get('k')).toBeUndefined();
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toMatch(/could not be used.*Jobs still run/);
		expect(store.health()).toEqual({ ok: false, reason: expect.stringMatching(/could not be used/) });
	});
});

describe('Store.prune', () => {
	it('drops results and journal records older than the TTL together', async () => {
		let clock = Date.UTC(2026, 0, 1);
		const dir = path.join(temp.dir, 'store');
		const store = openStore({ dir, maxBytes: 1024 * 1024, ttlMs: DAY }, { warn: () => undefined, now: () => clock });
		await store.journal.submitting('old', start);
		await store.results.put('old', Buffer.from('img'), meta);
		clock += 2 * DAY;
		await store.journal.submitting('new', { ...start, jobId: 'j2' });
		await store.results.put('new', Buffer.from('img2'), meta);
		await store.prune();
		const journalText = readdirSync(store.journal.cacheDir)
			.filter((name) => name.endsWith('.log'))
			.map((name) => readFileSync(path.join(store.journal.cacheDir, name), 'utf8'))
			.join('');
		expect(journalText).not.toContain('"key:old"');
		expect(journalText).not.toContain('"job:j1"');
		expect(journalText).toContain('"key:new"');
		expect(journalText).toContain('"job:j2"');
		expect(Object.keys(await cacacheBackend.ls(store.results.cacheDir))).toEqual(['result:new']);
		expect(store.health()).toEqual({ ok: true });
	});
});

describe('getStore', () => {
	const saved = process.env.COMFLY_STORE_DIR;
	afterEach(async () => {
		await resetProcessWide(['settings', 'store']);
		if (saved === undefined) delete process.env.COMFLY_STORE_DIR;
		else process.env.COMFLY_STORE_DIR = saved;
	});

	it('is one process-wide store configured from the environment once', async () => {
		await resetProcessWide(['settings', 'store']);
		process.env.COMFLY_STORE_DIR = path.join(temp.dir, 'env-store');
		const store = getStore();
		expect(store.config.dir).toBe(path.join(temp.dir, 'env-store'));
		process.env.COMFLY_STORE_DIR = path.join(temp.dir, 'other');
		expect(getStore()).toBe(store);
	});
});
