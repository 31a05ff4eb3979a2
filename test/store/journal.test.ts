import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { apiKeyHash } from '../../src/account';
import { JobJournal, type JobStart, StoreFaults } from '../../src/store';
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
		const journal = makeJournal(blocker);
		expect(await journal.submitting('k', start)).toBe(false);
		expect(await journal.submitting('k2', start)).toBe(false);
		expect(await journal.read('k')).toBeUndefined();
		expect(await journal.findByJobId('job-7')).toBeUndefined();
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toMatch(/could not be used: writing the job journal failed/);
		expect(journal.health().ok).toBe(false);
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
