import * as cacache from 'cacache';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type CacheBackend, ResultStore, StoreFaults, cacacheBackend } from '../../src/store';
import { READ_CHUNK_BYTES } from '../../src/store/cacheBackend';
import { allFiles, makeTempDir } from './tempStore';

const DAY = 24 * 3600 * 1000;
const png = (text: string) => Buffer.from(`\x89PNG fake image ${text}`);
const meta = { mimeType: 'image/png', fileExtension: 'png', taskId: 'task-1' };

let temp: ReturnType<typeof makeTempDir>;
let warnings: string[];
/** The faults of the last store made (its health). */
let faults: StoreFaults;
let clock: number;

function makeStore(options: { dir?: string; maxBytes?: number; backend?: CacheBackend; spareRecentMs?: number } = {}) {
	return new ResultStore(options.dir ?? path.join(temp.dir, 'store'), {
		maxBytes: options.maxBytes ?? 1024 * 1024,
		ttlMs: 30 * DAY,
		spareRecentMs: options.spareRecentMs,
		now: () => clock,
		backend: options.backend,
		faults: (faults = new StoreFaults((m) => warnings.push(m))),
	});
}

beforeEach(() => {
	temp = makeTempDir();
	warnings = [];
	clock = Date.UTC(2026, 0, 1);
});
afterEach(() => temp.cleanup());

describe('ResultStore: round trip', () => {
	it('creates a missing folder with mode 0700, stores and reads bytes and metadata', async () => {
		const store = makeStore();
		expect(await store.get('k1')).toBeUndefined();
		expect(await store.put('k1', png('one'), meta)).toBe(true);
		expect(statSync(store.rootDir).mode & 0o777).toBe(0o700);
		const found = await store.get('k1');
		expect(found?.bytes.equals(png('one'))).toBe(true);
		expect(found?.meta).toEqual({ ...meta, storedAt: clock, byteLength: png('one').length });
		expect(await store.has('k1')).toBe(true);
		expect(await store.has('k2')).toBe(false);
		expect(faults.health()).toEqual({ ok: true });
		expect(warnings).toEqual([]);
	});

	it('a second put under the same key replaces the result (refresh)', async () => {
		const store = makeStore();
		await store.put('k', png('old'), meta);
		await store.put('k', png('new'), { ...meta, taskId: 'task-2' });
		const found = await store.get('k');
		expect(found?.bytes.toString()).toContain('new');
		expect(found?.meta.taskId).toBe('task-2');
	});

	it('remove drops the key but keeps bytes another key still holds', async () => {
		const store = makeStore();
		await store.put('a', png('same'), meta);
		await store.put('b', png('same'), meta);
		expect(await store.remove('a')).toBe(true);
		expect(await store.get('a')).toBeUndefined();
		expect((await store.get('b'))?.bytes.equals(png('same'))).toBe(true);
		expect(await store.remove('b')).toBe(true);
		expect(allFiles(store.cacheDir).filter((f) => f.file.includes('content-v2'))).toEqual([]);
	});

	it('never stores an API key: unknown meta fields are dropped, no file on disk contains the key', async () => {
		const store = makeStore();
		const secret = 'sk-live-very-secret-0123456789';
		const sneaky = { ...meta, apiKey: secret, headers: { authorization: `Bearer ${secret}` } };
		await store.put('k', png('x'), sneaky as typeof meta);
		const found = await store.get('k');
		expect(Object.keys(found?.meta ?? {}).sort()).toEqual(
			['byteLength', 'fileExtension', 'mimeType', 'storedAt', 'taskId'].sort(),
		);
		for (const { file, bytes } of allFiles(temp.dir)) {
			expect({ file, leaks: bytes.includes(secret) }).toEqual({ file, leaks: false });
		}
	});

	it('rejects invalid metadata naming the field (a caller bug)', async () => {
		await expect(makeStore().put('k', png('x'), { ...meta, mimeType: '' })).rejects.toThrow(/mimeType/);
	});
});

describe('ResultStore: reading a large result', () => {
	it('streams it checked, 1 MiB at a time (never the whole content in one Buffer), and the bytes are the ones stored', async () => {
		const store = makeStore({ maxBytes: 64 * 1024 * 1024 });
		const bytes = Buffer.alloc(5 * 1024 * 1024 + 17, 7);
		bytes.write('a clip of five MiB', 0);
		expect(await store.put('clip', bytes, { mimeType: 'video/mp4', fileExtension: 'mp4' })).toBe(true);
		const opened = await store.openStream('clip');
		const chunks: Buffer[] = [];
		for await (const chunk of opened!.stream) chunks.push(chunk as Buffer);
		expect(Math.max(...chunks.map((chunk) => chunk.length))).toBeLessThanOrEqual(READ_CHUNK_BYTES);
		expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
	});
});

describe('ResultStore: corrupt entries', () => {
	async function corrupt(store: ResultStore, key: string, damage: (file: string) => void) {
		const entry = await cacache.get.info(store.cacheDir, `result:${key}`);
		damage(entry!.path);
	}

	it.each([
		['changed bytes (EINTEGRITY)', (file: string) => writeFileSync(file, png('tampered!'))],
		['truncated bytes (EBADSIZE)', (file: string) => truncateSync(file, 3)],
		['a missing content file', (file: string) => rmSync(file)],
	])('%s: a miss, logged once, removed; the store stays healthy', async (_name, damage) => {
		const store = makeStore();
		await store.put('k', png('good'), meta);
		await corrupt(store, 'k', damage);
		expect(await store.get('k')).toBeUndefined();
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toMatch(/corrupt.*treated as missing and removed/);
		expect(await store.has('k')).toBe(false);
		expect(await store.get('k')).toBeUndefined();
		expect(warnings).toHaveLength(1);
		expect(faults.health()).toEqual({ ok: true });
		expect(await store.put('k', png('good again'), meta)).toBe(true);
		expect((await store.get('k'))?.bytes.toString()).toContain('good again');
	});
});

describe('ResultStore: faults never throw into the job path', () => {
	// Running as root, a read-only chmod does not stop writes: the store path is a regular FILE instead,
	// so creating the folder fails (EEXIST/ENOTDIR) exactly like an unwritable folder.
	it('store path is a regular file: put -> false, get -> miss, one warning, health says why', async () => {
		const blocker = path.join(temp.dir, 'not-a-folder');
		writeFileSync(blocker, 'x');
		const store = makeStore({ dir: blocker });
		expect(await store.put('k', png('a'), meta)).toBe(false);
		expect(await store.put('k2', png('b'), meta)).toBe(false);
		expect(await store.get('k')).toBeUndefined();
		expect(await store.has('k')).toBe(false);
		expect(await store.prune()).toEqual({ removed: 0, freedBytes: 0, keptBytes: 0 });
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toMatch(/result store at .*not-a-folder could not be used: writing a result failed \(the path is not a folder\)/);
		const health = faults.health();
		expect(health.ok).toBe(false);
		expect(health.reason).toMatch(/could not be used/);
	});

	it('disk full (injected ENOSPC from cacache): put -> false with "disk full"; a later write recovers', async () => {
		let full = true;
		const backend: CacheBackend = {
			...cacacheBackend,
			put: async (...args) => {
				if (full) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
				return cacacheBackend.put(...args);
			},
		};
		const store = makeStore({ backend });
		expect(await store.put('k', png('a'), meta)).toBe(false);
		expect(faults.health()).toEqual({ ok: false, reason: expect.stringMatching(/disk full/) });
		expect(await store.get('k')).toBeUndefined();
		full = false;
		expect(await store.put('k', png('a'), meta)).toBe(true);
		expect(faults.health()).toEqual({ ok: true });
		expect(warnings).toHaveLength(1);
	});

	it('an unreadable index (injected EIO) is a miss and a fault, not a throw', async () => {
		const backend: CacheBackend = {
			...cacacheBackend,
			info: async () => {
				throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
			},
		};
		const store = makeStore({ backend });
		await expect(store.get('k')).resolves.toBeUndefined();
		expect(faults.health().ok).toBe(false);
		expect(warnings).toHaveLength(1);
	});
});

describe('ResultStore: prune (TTL and max bytes, oldest first)', () => {
	it('drops results older than the TTL, with their content; expired results are misses before pruning', async () => {
		const store = makeStore();
		await store.put('old', png('old'), meta);
		clock += 10 * DAY;
		await store.put('young', png('young'), meta);
		const oldPath = (await cacache.get.info(store.cacheDir, 'result:old'))!.path;
		clock += 21 * DAY; // old is 31 days old, young 21
		expect(await store.get('old')).toBeUndefined();
		expect(await store.has('old')).toBe(false);
		const summary = await store.prune();
		expect(summary).toMatchObject({ removed: 1, freedBytes: png('old').length });
		expect(existsSync(oldPath)).toBe(false);
		expect((await store.get('young'))?.bytes.toString()).toContain('young');
	});

	it('keeps the bytes under maxBytes by dropping the oldest first (also after a put)', async () => {
		const store = makeStore({ maxBytes: 250 });
		const blob = (c: string) => Buffer.alloc(100, c);
		for (const key of ['a', 'b', 'c']) {
			await store.put(key, blob(key), meta);
			clock += 1000;
		}
		expect(await store.get('a')).toBeUndefined();
		expect((await store.get('b'))?.bytes.equals(blob('b'))).toBe(true);
		expect((await store.get('c'))?.bytes.equals(blob('c'))).toBe(true);
		expect(await store.prune()).toEqual({ removed: 0, freedBytes: 0, keptBytes: 200 });
	});

	it('spares results younger than spareRecentMs from maxBytes (a pool may hold only their reference), oldest first after', async () => {
		const store = makeStore({ maxBytes: 250, spareRecentMs: 5000 });
		const blob = (c: string) => Buffer.alloc(100, c);
		for (const key of ['a', 'b', 'c']) {
			await store.put(key, blob(key), meta);
			clock += 1000;
		}
		expect(await store.prune()).toEqual({ removed: 0, freedBytes: 0, keptBytes: 300 }); // over the bound, all young
		clock += 3500; // a is 5.5 s old, b 4.5 s, c 3.5 s
		expect(await store.prune()).toEqual({ removed: 1, freedBytes: 100, keptBytes: 200 });
		expect(await store.get('a')).toBeUndefined();
		expect((await store.get('b'))?.bytes.equals(blob('b'))).toBe(true);
	});

	it('shared bytes count once and stay while a kept key holds them', async () => {
		const store = makeStore({ maxBytes: 150 });
		await store.put('a', Buffer.alloc(100, 's'), meta);
		clock += 2 * DAY;
		await store.put('b', Buffer.alloc(100, 's'), meta); // same content: 100 unique bytes, fits
		expect((await store.get('a'))?.bytes.length).toBe(100);
		clock += 29 * DAY; // a is 31 days old (expired), b 29
		expect(await store.prune()).toEqual({ removed: 1, freedBytes: 0, keptBytes: 100 });
		expect((await store.get('b'))?.bytes.length).toBe(100);
	});

	it('over the byte bound, shared bytes are freed only when their last holder goes', async () => {
		const store = makeStore({ maxBytes: 150 });
		for (const [key, fill] of [['a', 's'], ['b', 's'], ['c', 'c']]) {
			await store.put(key, Buffer.alloc(100, fill), meta);
			clock += 1000;
		}
		// a and b share 100 bytes; with c that is 200 > 150: a goes (bytes still held by b), then b.
		expect(await store.get('a')).toBeUndefined();
		expect(await store.get('b')).toBeUndefined();
		expect((await store.get('c'))?.bytes.equals(Buffer.alloc(100, 'c'))).toBe(true);
	});
});

describe('ResultStore: adopting a downloaded file (one write, one hash)', () => {
	const sri = (bytes: Buffer) => `sha256-${createHash('sha256').update(bytes).digest('base64')}`;
	function download(name: string, bytes: Buffer) {
		const filePath = path.join(temp.dir, name);
		writeFileSync(filePath, bytes);
		return { filePath, integrity: sri(bytes), byteLength: bytes.length };
	}
	const readAll = async (stream: NodeJS.ReadableStream) => {
		const chunks: Buffer[] = [];
		for await (const chunk of stream) chunks.push(chunk as Buffer);
		return Buffer.concat(chunks);
	};

	it('the file becomes the stored content without a copy (same inode) and leaves its download path; get/check read it', async () => {
		const store = makeStore();
		const file = download('a.png', png('adopted'));
		const inode = statSync(file.filePath).ino;
		expect(await store.adoptFile('k', file, meta)).toBe(true);
		expect(existsSync(file.filePath)).toBe(false);
		const content = allFiles(path.join(store.cacheDir, 'content-v2'));
		expect(content).toHaveLength(1);
		expect(content[0].file).toContain(`${path.sep}sha256${path.sep}`);
		expect(statSync(content[0].file).ino).toBe(inode);
		expect((await store.get('k'))?.bytes.equals(png('adopted'))).toBe(true);
		expect(await store.check('k')).toMatchObject({ ...meta, byteLength: png('adopted').length });
		const opened = await store.openStream('k', { verify: false });
		expect((await readAll(opened!.stream)).equals(png('adopted'))).toBe(true);
	});

	it('the same bytes adopted twice (two keys) share one content file; both read', async () => {
		const store = makeStore();
		expect(await store.adoptFile('k1', download('1.png', png('twin')), meta)).toBe(true);
		expect(await store.adoptFile('k2', download('2.png', png('twin')), meta)).toBe(true);
		expect(allFiles(path.join(store.cacheDir, 'content-v2'))).toHaveLength(1);
		expect((await store.get('k1'))?.bytes.equals(png('twin'))).toBe(true);
		expect((await store.get('k2'))?.bytes.equals(png('twin'))).toBe(true);
	});

	it('a file whose bytes do not match the integrity it came with is corrupt on a verified read: check drops it', async () => {
		const store = makeStore();
		const file = { ...download('bad.png', png('changed on disk')), integrity: sri(png('what was hashed')) };
		expect(await store.adoptFile('k', file, meta)).toBe(true);
		expect(await store.check('k')).toBeUndefined();
		expect(await store.has('k')).toBe(false);
		expect(warnings.join('\n')).toMatch(/corrupt \(content failed its integrity check\)/);
	});

	it('an existing content file of the same bytes that is corrupt is replaced by the adopted file, never trusted', async () => {
		const store = makeStore();
		expect(await store.adoptFile('k1', download('1.png', png('same bytes')), meta)).toBe(true);
		const [content] = allFiles(path.join(store.cacheDir, 'content-v2'));
		rmSync(content.file);
		writeFileSync(content.file, Buffer.from('rotten')); // a hostile disk: the content file went bad
		expect(await store.adoptFile('k2', download('2.png', png('same bytes')), meta)).toBe(true);
		const opened = await store.openStream('k2', { verify: false }); // what the collector reads right after
		expect((await readAll(opened!.stream)).equals(png('same bytes'))).toBe(true);
		expect(await store.check('k1')).toMatchObject(meta); // the good bytes serve the earlier key too
		expect(allFiles(store.cacheDir).filter((f) => f.file.includes('content-v2'))).toHaveLength(1);
	});

	const otherDisk = '/dev/shm';
	const onOtherDisk = existsSync(otherDisk) && statSync(otherDisk).dev !== statSync(os.tmpdir()).dev;
	(onOtherDisk ? it : it.skip)('results/ on another filesystem (real EXDEV on the link): the file is copied in, stored and read', async () => {
		const elsewhere = mkdtempSync(path.join(otherDisk, 'flux-results-'));
		try {
			const root = path.join(temp.dir, 'store');
			mkdirSync(root, { mode: 0o700 });
			symlinkSync(elsewhere, path.join(root, 'results'));
			const store = makeStore({ dir: root });
			const file = download('x.png', png('across disks'));
			expect(await store.adoptFile('k', file, meta)).toBe(true);
			expect(existsSync(file.filePath)).toBe(false);
			expect(await store.check('k')).toMatchObject(meta);
			expect(faults.health()).toEqual({ ok: true });
			expect(allFiles(elsewhere).filter((f) => f.file.includes('content-v2'))).toHaveLength(1);
			expect(allFiles(path.join(elsewhere, 'tmp'))).toEqual([]);
		} finally {
			rmSync(elsewhere, { recursive: true, force: true });
		}
	});

	it('a store that cannot adopt (injected ENOSPC): false, the download file is left for the caller, health says why', async () => {
		const backend: CacheBackend = {
			...cacacheBackend,
			adopt: async () => {
				throw Object.assign(new Error('ENOSPC: no space left on device, link'), { code: 'ENOSPC' });
			},
		};
		const store = makeStore({ backend });
		const file = download('kept.png', png('kept'));
		expect(await store.adoptFile('k', file, meta)).toBe(false);
		expect(readFileSync(file.filePath).equals(png('kept'))).toBe(true);
		expect(faults.health()).toEqual({ ok: false, reason: expect.stringMatching(/disk full/) });
	});

	it('new content is hashed with sha256; an entry an earlier version wrote with sha512 still reads (get, check, stream)', async () => {
		const store = makeStore();
		expect(await store.put('new', png('new'), meta)).toBe(true);
		expect((await cacache.get.info(store.cacheDir, 'result:new'))?.integrity).toMatch(/^sha256-/);
		const stored = { ...meta, storedAt: clock, byteLength: png('old').length };
		await cacache.put(store.cacheDir, 'result:old', png('old'), { metadata: stored, algorithms: ['sha512'] });
		expect((await cacache.get.info(store.cacheDir, 'result:old'))?.integrity).toMatch(/^sha512-/);
		expect((await store.get('old'))?.bytes.equals(png('old'))).toBe(true);
		expect(await store.check('old')).toMatchObject(meta);
		expect((await readAll((await store.openStream('old'))!.stream)).equals(png('old'))).toBe(true);
	});
});

describe('ResultStore: no empty folders left behind', () => {
	/** Every folder below `dir` that holds nothing. */
	function emptyFolders(dir: string): string[] {
		const found: string[] = [];
		const walk = (folder: string) => {
			const names = readdirSync(folder);
			if (names.length === 0) found.push(folder);
			for (const name of names) if (statSync(path.join(folder, name)).isDirectory()) walk(path.join(folder, name));
		};
		walk(dir);
		return found;
	}

	it('pruned results take their index and content folders with them (cacache leaves them: 4 KiB each on disk)', async () => {
		const store = makeStore();
		for (let i = 0; i < 40; i++) expect(await store.put(`key-${i}`, png(`image ${i}`), meta)).toBe(true);
		const dir = path.join(temp.dir, 'store');
		const folders = () => readdirSync(dir, { recursive: true }).filter((name) => statSync(path.join(dir, name as string)).isDirectory()).length;
		const before = folders();
		clock += 31 * DAY; // every result expired
		expect((await store.prune())?.removed).toBe(40);
		expect(emptyFolders(dir).filter((folder) => /index-v5|content-v2/.test(folder) && !/(index-v5|content-v2(\/sha256)?)$/.test(folder))).toEqual([]);
		expect(folders()).toBeLessThan(before - 40); // at least one leaf folder per key went
		expect(await store.put('key-again', png('again'), meta)).toBe(true); // and writing makes them again
		expect((await store.get('key-again'))?.bytes.toString()).toContain('again');
	});

	it('a folder holding another entry stays', async () => {
		const store = makeStore();
		expect(await store.put('keep', png('keep'), meta)).toBe(true);
		expect(await store.put('drop', png('drop'), meta)).toBe(true);
		expect(await store.remove('drop')).toBe(true);
		expect((await store.get('keep'))?.bytes.toString()).toContain('keep');
	});
});
