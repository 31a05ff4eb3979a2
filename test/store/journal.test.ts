import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as cacache from 'cacache';
import * as path from 'node:path';
import { apiKeyHash } from '../../src/account';
import { JobJournal, type JobStart, StoreFaults } from '../../src/store';
import { bucketOf, JournalLog, type LogEntry } from '../../src/store/journalLog';
import { spareJournal } from '../../src/store/spareFolder';
import { ReplayQueue } from '../../src/coordination/replayQueue';
import { until } from '../support/until';
import { allFiles, makeTempDir } from './tempStore';

const DAY = 24 * 3600 * 1000;
const SECRET = 'sk-live-journal-secret-987654321';
const start: JobStart = {
	jobId: 'job-7',
	apiStyle: 'relay',
	baseUrl: 'http://127.0.0.1:9999',
	model: 'flux-3',
	apiKeyHash: apiKeyHash(SECRET),
};

let temp: ReturnType<typeof makeTempDir>;
let warnings: string[];
let clock: number;

function makeJournal(dir = path.join(temp.dir, 'store')) {
	return new JobJournal(dir, { ttlMs: 30 * DAY, now: () => clock, faults: new StoreFaults((m) => warnings.push(m)) });
}

beforeEach(() => {
	temp = makeTempDir();
	warnings = [];
	clock = Date.UTC(2026, 0, 1);
});
afterEach(() => temp.cleanup());

describe('JobJournal', () => {
	it('records submitting -> submitted -> stored; read gives the latest, with what came before', async () => {
		const journal = makeJournal();
		expect(await journal.read('k')).toBeUndefined();
		expect(await journal.submitting('k', start)).toBe(true);
		expect(await journal.read('k')).toEqual({
			...start,
			jobKey: 'k',
			state: 'submitting',
			createdAt: clock,
			updatedAt: clock,
		});
		const created = clock;
		clock += 1000;
		expect(await journal.submitted('k', { taskId: 'task-1', pollingUrl: 'http://127.0.0.1:9999/v1/get_result?id=task-1' })).toBe(true);
		expect(await journal.read('k')).toMatchObject({ state: 'submitted', taskId: 'task-1', createdAt: created, updatedAt: clock });
		clock += 1000;
		expect(await journal.stored('k')).toBe(true);
		expect(await journal.read('k')).toMatchObject({ state: 'stored', taskId: 'task-1', jobId: 'job-7' });
		expect(warnings).toEqual([]);
	});

	it('a NEW journal over the same folder (a new process) finds the job by its pool job id', async () => {
		await makeJournal().submitting('key-abc', start);
		await makeJournal().submitted('key-abc', { taskId: 'task-9' });
		const found = await makeJournal().findByJobId('job-7');
		expect(found).toEqual({ jobKey: 'key-abc', record: expect.objectContaining({ state: 'submitted', taskId: 'task-9' }) });
		expect(await makeJournal().findByJobId('job-unknown')).toBeUndefined();
	});

	it('failed keeps a redacted reason: no key, no token, no URL', async () => {
		const journal = makeJournal();
		await journal.submitting('k', start);
		await journal.failed('k', `HTTP 401 from https://api.example.test/v1?key=abc with x-key: ${SECRET} Bearer tok123456`, [SECRET]);
		const record = await journal.read('k');
		expect(record?.state).toBe('failed');
		expect(record?.reason).toContain('HTTP 401');
		expect(record?.reason).not.toContain(SECRET);
		expect(record?.reason).not.toContain('tok123456');
		expect(record?.reason).not.toContain('api.example.test');
	});

	it('never writes the API key to disk', async () => {
		const journal = makeJournal();
		await journal.submitting('k', start);
		await journal.submitted('k', { taskId: 't' });
		await journal.failed('k', `boom ${SECRET}`, [SECRET]);
		const files = allFiles(temp.dir);
		expect(files.length).toBeGreaterThan(0);
		for (const { file, bytes } of files) expect({ file, leaks: bytes.includes(SECRET) }).toEqual({ file, leaks: false });
	});

	it('a state change without a submitting record is refused (false), nothing is invented', async () => {
		const journal = makeJournal();
		expect(await journal.submitted('nope', { taskId: 't' })).toBe(false);
		expect(await journal.read('nope')).toBeUndefined();
	});

	it('a refresh job takes over the key; the old job id still resolves to the key', async () => {
		const journal = makeJournal();
		await journal.submitting('k', start);
		await journal.stored('k');
		await journal.submitting('k', { ...start, jobId: 'job-8' });
		expect((await journal.read('k'))?.jobId).toBe('job-8');
		expect((await journal.findByJobId('job-7'))?.record.jobId).toBe('job-8');
	});

	it('records older than the TTL are gone for read and removed by prune', async () => {
		const journal = makeJournal();
		await journal.submitting('old', start);
		clock += 20 * DAY;
		await journal.submitting('young', { ...start, jobId: 'job-y' });
		clock += 11 * DAY;
		expect(await journal.read('old')).toBeUndefined();
		expect(await journal.findByJobId('job-7')).toBeUndefined();
		expect(await journal.prune()).toBe(2); // key:old and job:job-7
		expect((await journal.findByJobId('job-y'))?.jobKey).toBe('young');
	});

	it('store path is a regular file: writes return false, reads miss, one warning, health says why', async () => {
		const blocker = path.join(temp.dir, 'file');
		writeFileSync(blocker, 'x');
		const faults = new StoreFaults((m) => warnings.push(m));
		const journal = new JobJournal(blocker, { ttlMs: 30 * DAY, now: () => clock, faults });
		expect(await journal.submitting('k', start)).toBe(false);
		expect(await journal.submitting('k2', start)).toBe(false);
		expect(await journal.read('k')).toBeUndefined();
		expect(await journal.findByJobId('job-7')).toBeUndefined();
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toMatch(/could not be used: writing the job journal failed/);
		expect(faults.health().ok).toBe(false);
	});

	it('an entry the folder refused still goes to the mirror (other hosts), and no older entry of its name stays queued to land after it', async () => {
		const blocker = path.join(temp.dir, 'blocked');
		writeFileSync(blocker, 'x');
		const inRedis = new Map<string, LogEntry>();
		let refuse = 1;
		const mirror = {
			get: async (name: string) => inRedis.get(name),
			put: async (entry: LogEntry) => (refuse > 0 ? (refuse--, false) : (inRedis.set(entry.name, entry), true)),
		};
		const replays = new ReplayQueue();
		const spare = spareJournal(path.join(temp.dir, 'spare-mirrored'));
		const journal = new JobJournal(blocker, { ttlMs: 30 * DAY, now: () => clock, faults: new StoreFaults(() => undefined), spare, mirror, replays });
		expect(await journal.submitting('k', start)).toBe(false); // the folder refused it (the spare folder has it); so did the mirror
		expect(replays.size).toBe(1);
		expect(await journal.submitted('k', { taskId: 'task-1' })).toBe(false);
		expect(replays.size).toBe(0);
		expect((inRedis.get('key:k')?.value as { state?: string } | undefined)?.state).toBe('submitted');
	});
});

describe('submitting writes its record and its job link at once: either may fail alone', () => {
	const key = 'c'.repeat(64);
	/** A journal of the folder whose entries can fall back to a spare folder, as openStore makes it. */
	const withSpare = (dir: string) => new JobJournal(dir, { ttlMs: 30 * DAY, now: () => clock, faults: new StoreFaults((m) => warnings.push(m)), spare: spareJournal(path.join(temp.dir, 'spare')) });
	/** The bucket log of an entry name made unwritable (a folder where its file goes: EISDIR, also for root). */
	const breakBucket = (dir: string, name: string) => mkdirSync(path.join(dir, 'journal', `${bucketOf(name)}.log`), { recursive: true });

	it.each([
		['the record', `key:${key}`],
		['the job link', `job:${start.jobId}`],
	])('%s cannot be written: false, and another process still reads the key as submitting (maybe paid), found by its job id', async (_what, name) => {
		if (bucketOf(`key:${key}`) === bucketOf(`job:${start.jobId}`)) throw new Error('the test needs the two names in different buckets');
		const dir = path.join(temp.dir, 'store');
		breakBucket(dir, name);
		expect(await withSpare(dir).submitting(key, start)).toBe(false);
		const other = withSpare(dir);
		expect((await other.read(key))?.state).toBe('submitting');
		expect(await other.findByJobId(start.jobId)).toMatchObject({ jobKey: key, record: { state: 'submitting', jobId: start.jobId } });
		expect(warnings.some((w) => /writing the job journal failed/.test(w))).toBe(true);
	});
});

describe('JobJournal.link', () => {
	it('links another job id to a key: findByJobId finds the key and its latest record', async () => {
		const { dir, cleanup } = makeTempDir();
		try {
			const journal = new JobJournal(dir, { ttlMs: 60_000 });
			const key = 'a'.repeat(64);
			await journal.submitting(key, { jobId: 'job-1', apiStyle: 'relay', baseUrl: 'http://127.0.0.1:1', model: 'm', apiKeyHash: 'ab' });
			await journal.submitted(key, { taskId: 'task-1' });
			expect(await journal.link('job-2', key)).toBe(true);
			expect(await journal.findByJobId('job-2')).toMatchObject({ jobKey: key, record: { state: 'submitted', taskId: 'task-1', jobId: 'job-1' } });
		} finally {
			cleanup();
		}
	});
});

describe('a damaged or lost journal is never silent', () => {
	it('a damaged line in a journal file: the earlier record stands, and one note says so (log and report)', async () => {
		const faults = new StoreFaults((m) => warnings.push(m), () => clock);
		const journal = new JobJournal(path.join(temp.dir, 'store'), { ttlMs: 30 * DAY, now: () => clock, faults });
		await journal.submitting('k', start);
		await journal.submitted('k', { taskId: 'task-1' });
		for (const { file, bytes } of allFiles(path.join(temp.dir, 'store', 'journal'))) {
			if (file.endsWith('.log')) writeFileSync(file, bytes.toString('utf8').replace('"task-1"', '"task-X"'));
		}
		expect(await journal.readChecked('k')).toMatchObject({ record: { state: 'submitting' }, damaged: true });
		expect(await journal.read('k')).toMatchObject({ state: 'submitting' });
		expect(warnings).toEqual([expect.stringMatching(/damaged line\(s\) in .*\.log .*may be sent \(and paid\) again/)]);
		expect(faults.warnings()).toEqual(warnings);
	});

	it('a journal deleted while the store kept its folder: the next process notes it was lost', async () => {
		const dir = path.join(temp.dir, 'store');
		await makeJournal(dir).submitting('k', start);
		rmSync(path.join(dir, 'journal'), { recursive: true, force: true });
		const faults = new StoreFaults((m) => warnings.push(m), () => clock);
		const next = new JobJournal(dir, { ttlMs: 30 * DAY, now: () => clock, faults });
		expect(await next.read('k')).toBeUndefined();
		expect(faults.warnings()).toEqual([expect.stringMatching(/job journal at .* was lost .* a re-run sends them again \(and pays again\)/)]);
		// Noted once: the new journal has the store's identity again.
		await next.submitting('k2', start);
		const later = new JobJournal(dir, { ttlMs: 30 * DAY, now: () => clock, faults: new StoreFaults((m) => warnings.push(m)) });
		expect(await later.read('k2')).toBeDefined();
		expect(warnings).toHaveLength(1);
	});

	it('a new store is not a lost journal: no note', async () => {
		const journal = makeJournal();
		expect(await journal.read('k')).toBeUndefined();
		await journal.submitting('k', start);
		expect(await makeJournal().read('k')).toBeDefined();
		expect(warnings).toEqual([]);
	});
});

describe('the cacache journal of an earlier version', () => {
	it('is moved into the logs on first use (records and job links), and its folders removed', async () => {
		const dir = path.join(temp.dir, 'store');
		const legacy = path.join(dir, 'journal');
		const record = { ...start, jobKey: 'k', state: 'submitted', createdAt: clock, updatedAt: clock, taskId: 'task-old' };
		await cacache.put(legacy, 'key:k', Buffer.alloc(0), { metadata: record, time: clock } as cacache.put.Options);
		await cacache.put(legacy, 'job:job-7', Buffer.alloc(0), { metadata: { jobKey: 'k' }, time: clock } as cacache.put.Options);
		const journal = makeJournal(dir);
		expect(await journal.findByJobId('job-7')).toEqual({ jobKey: 'k', record });
		expect(existsSync(path.join(legacy, 'index-v5'))).toBe(false);
		expect(existsSync(path.join(legacy, 'content-v2'))).toBe(false);
		expect(await makeJournal(dir).read('k')).toEqual(record);
	});

	it('a folder that cannot take the journal: its entries go to the machine\'s spare folder, where another process reads them', async () => {
		const blocker = path.join(temp.dir, 'not-a-folder');
		writeFileSync(blocker, 'x');
		const spareDir = path.join(temp.dir, 'spare');
		const faults = new StoreFaults((m) => warnings.push(m));
		const owner = new JobJournal(blocker, { ttlMs: 30 * DAY, now: () => clock, faults, spare: spareJournal(spareDir) });
		expect(await owner.submitting('k', start)).toBe(false);
		clock += 1;
		expect(await owner.submitted('k', { taskId: 'task-9' })).toBe(false);
		clock += 1;
		expect(await owner.failed('k', 'delivered; the result store could not keep it', [], 'not_kept')).toBe(false);
		expect(warnings.join('\n')).toMatch(/journal/);
		const other = new JobJournal(blocker, { ttlMs: 30 * DAY, now: () => clock, faults: new StoreFaults(() => undefined), spare: spareJournal(spareDir) });
		expect(await other.read('k')).toMatchObject({ jobKey: 'k', state: 'failed', taskId: 'task-9', errorKind: 'not_kept' });
		const withoutSpare = new JobJournal(blocker, { ttlMs: 30 * DAY, now: () => clock, faults: new StoreFaults(() => undefined) });
		expect(await withoutSpare.read('k')).toBeUndefined();
	});
});

describe('order across copies and hosts comes from the revision, not the clock', () => {
	/** Redis as the journal's mirror, in memory: every host on it reads what the others wrote. */
	function memoryMirror() {
		const entries = new Map<string, LogEntry>();
		return { get: async (name: string) => entries.get(name), put: async (entry: LogEntry) => (entries.set(entry.name, entry), true) };
	}

	it("an older entry the mirror refused is not replayed while a newer one of the same name is on its way (it would land last and stay)", async () => {
		const inRedis = new Map<string, LogEntry>();
		let refuse = 0;
		let onTheWay: (() => void) | undefined;
		const mirror = {
			get: async (name: string) => inRedis.get(name),
			put: async (entry: LogEntry) => {
				if (refuse > 0) return (refuse--, false); // an error answer (out of memory)
				inRedis.set(entry.name, entry); // lands at once; the answer comes later
				const first = onTheWay === undefined && (entry.value as { state?: string }).state === 'submitted';
				if (first) await new Promise<void>((resolve) => (onTheWay = resolve)); // the newer entry's answer is slow
				return true;
			},
		};
		const replays = new ReplayQueue();
		const journal = new JobJournal(path.join(temp.dir, 'mirrored'), { ttlMs: 30 * DAY, now: () => clock, mirror, replays });
		refuse = 1; // the record's `submitting` entry is refused (its job link goes through)
		expect(await journal.submitting('k', start)).toBe(true);
		expect(replays.size).toBe(1);
		const submitted = journal.submitted('k', { taskId: 'task-1' });
		await until(() => onTheWay !== undefined, 'the newer entry is on its way');
		expect(replays.size).toBe(0); // nothing older of the name left to replay meanwhile (a retry)
		await replays.replay(); // the mirror answers again meanwhile: its return puts the newest entry again, not the refused one
		onTheWay!();
		expect(await submitted).toBe(true);
		expect([...inRedis.values()].filter((entry) => entry.name.startsWith('key:')).map((entry) => (entry.value as { state: string }).state)).toEqual(['submitted']);
		expect(replays.size).toBe(0);
	});

	it('a record written later by a host whose clock is an hour behind still wins, on every host', async () => {
		const mirror = memoryMirror();
		let behind = clock - 3600_000;
		const hostA = new JobJournal(path.join(temp.dir, 'a'), { ttlMs: 30 * DAY, now: () => clock, mirror });
		const hostB = new JobJournal(path.join(temp.dir, 'b'), { ttlMs: 30 * DAY, now: () => behind, mirror });
		await hostA.submitting('k', start);
		expect(await hostB.read('k')).toMatchObject({ state: 'submitting' });
		behind += 1000;
		expect(await hostB.submitted('k', { taskId: 'task-b' })).toBe(true);
		expect(await hostA.read('k')).toMatchObject({ state: 'submitted', taskId: 'task-b' });
		clock += 1000;
		expect(await hostA.stored('k')).toBe(true);
		expect(await hostB.read('k')).toMatchObject({ state: 'stored', taskId: 'task-b' });
	});

	it('in one folder too: a later line with a higher revision wins over a line with a later time; lines without a revision are 0', async () => {
		const log = new JournalLog(path.join(temp.dir, 'log'));
		await log.appendAll([{ name: 'n', time: 500, value: 'old version, no revision' }]);
		await log.appendAll([{ name: 'n', time: 900, rev: 2, value: 'rev 2' }]);
		await log.appendAll([{ name: 'n', time: 100, rev: 3, value: 'rev 3, clock behind' }]);
		await log.appendAll([{ name: 'n', time: 50, rev: 3, value: 'rev 3, earlier time' }]);
		expect((await log.latest('n')).entry?.value).toBe('rev 3, clock behind');
	});
});

describe('the write-ahead file', () => {
	it('a `submitting` line the bucket lost (a power cut) is read from the write-ahead file, and a prune folds it into the bucket', async () => {
		const dir = path.join(temp.dir, 'store');
		expect(await makeJournal(dir).submitting('k', start)).toBe(true);
		writeFileSync(path.join(dir, 'journal', `${bucketOf('key:k')}.log`), ''); // the bucket's unsynced line is gone
		expect(await makeJournal(dir).read('k')).toMatchObject({ state: 'submitting' });
		expect(await makeJournal(dir).prune()).toBe(0);
		expect(readdirSync(path.join(dir, 'journal')).filter((n) => n.startsWith('ahead-'))).toEqual(['ahead-1.log']);
		expect(readFileSync(path.join(dir, 'journal', 'ahead-1.log'), 'utf8')).toBe('');
		expect(await makeJournal(dir).read('k')).toMatchObject({ state: 'submitting' });
		expect(await makeJournal(dir).findByJobId('job-7')).toMatchObject({ jobKey: 'k' });
	});

	it('a record that a prune (in another process) dropped does not come back from the write-ahead file', async () => {
		const dir = path.join(temp.dir, 'store');
		const journal = makeJournal(dir);
		await journal.submitting('k', start);
		await journal.stored('k');
		expect(await journal.read('k')).toMatchObject({ state: 'stored' });
		expect(await makeJournal(dir).prune({ drop: () => true })).toBeGreaterThan(0);
		expect(await journal.read('k')).toBeUndefined();
	});
});

it('a key written again after a prune picked it to drop keeps its new records (a re-run sending it anew is not forgotten)', async () => {
	const dir = path.join(temp.dir, 'store');
	const rerun = makeJournal(dir);
	await rerun.submitting('k', start);
	await rerun.failed('k', 'refused');
	const pruner = makeJournal(dir);
	const log = (pruner as unknown as { log: { compact: (...args: unknown[]) => Promise<unknown> } }).log;
	const compact = log.compact.bind(log);
	let written = false;
	// Between the prune's choice (the key's `failed` record) and its compaction, the key is sent anew and acknowledged.
	log.compact = async (...args) => {
		if (!written) {
			written = true;
			await rerun.submitting('k', { ...start, jobId: 'job-8' });
			await rerun.submitted('k', { taskId: 'task-8' });
		}
		return await compact(...args);
	};
	await pruner.prune({ drop: (record) => record.state === 'failed' });
	expect(written).toBe(true);
	expect(await makeJournal(dir).read('k')).toMatchObject({ state: 'submitted', jobId: 'job-8', taskId: 'task-8' });
});
