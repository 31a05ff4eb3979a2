/**
 * The whole store folder within COMFLY_STORE_MAX_MB (src/store/storeBound.ts), on real files: results, journal and
 * kept downloads count together; writing past an eighth of the bound prunes in the background; what a running
 * batch still needs (a result in use, a download in progress, the record of a job not settled, another
 * process's young result) is never removed.
 */
import { mkdirSync, readdirSync, statSync, writeFileSync, existsSync } from 'node:fs';
import * as path from 'node:path';

import { apiKeyHash } from '../../src/account';
import { openStore, ResultStore, type Store } from '../../src/store';
import { until } from '../support/until';
import { makeTempDir } from './tempStore';

const DAY = 24 * 3600 * 1000;
const KB = 1024;
const meta = { mimeType: 'image/png', fileExtension: 'png' };
const start = (jobId: string) => ({ jobId, apiStyle: 'relay', baseUrl: 'http://127.0.0.1:1', model: 'flux-3-image', apiKeyHash: apiKeyHash('sk-bound') });

let temp: ReturnType<typeof makeTempDir>;
let clock: number;
beforeEach(() => {
	temp = makeTempDir();
	clock = Date.UTC(2026, 0, 1);
});
afterEach(() => temp.cleanup());

function store(maxKb: number, spareRecentMs = 0): Store {
	return openStore({ dir: path.join(temp.dir, 'store'), maxBytes: maxKb * KB, ttlMs: 30 * DAY, spareRecentMs }, { warn: () => undefined, now: () => clock });
}

/** Every file's bytes below the store folder (a file a background prune or compaction removed meanwhile counts 0). */
function folderBytes(dir: string): number {
	// Walked by hand, not readdirSync's `recursive`: that throws when a folder vanishes mid-walk (the prune removes
	// emptied folders), and a vanished folder counts 0 like a vanished file.
	let entries;
	try {
		entries = readdirSync(dir, { withFileTypes: true });
	} catch (error) {
		if ((error as { code?: string }).code === 'ENOENT') return 0;
		throw error;
	}
	return entries.reduce((sum, entry) => {
		const file = path.join(dir, entry.name);
		if (entry.isDirectory()) return sum + folderBytes(file);
		const info = statSync(file, { throwIfNoEntry: false });
		return sum + (info?.isFile() ? info.size : 0);
	}, 0);
}

/** A prune of its own (not one a write started earlier, which `prune()` joins). */
async function pruneNow(s: Store) {
	await s.prune();
	return await s.prune();
}

async function putJob(s: Store, key: string, kb: number): Promise<void> {
	await s.journal.submitting(key, start(`job-${key}`));
	await s.results.put(key, Buffer.alloc(kb * KB, key), meta);
	await s.journal.stored(key);
	clock += 1000;
}

it('writing past an eighth of the bound prunes the whole folder in the background, down to 7/8 of it, oldest first', async () => {
	const s = store(400);
	for (let i = 0; i < 12; i++) await putJob(s, `k${i}`, 40); // 480 KiB of results into a 400 KiB store
	// Nothing here calls prune: the writes did (in the background) as they grew past an eighth of the bound.
	await until(() => folderBytes(s.config.dir) <= 400 * KB, 'the folder is within its bound');
	const size = await pruneNow(s);
	expect(size!.totalBytes).toBeLessThanOrEqual(350 * KB);
	expect(size!.journalBytes).toBeGreaterThan(0);
	expect(await s.results.has('k0')).toBe(false);
	expect(await s.results.has('k11')).toBe(true);
});

it('never removes a result in use (not yet handed to n8n) for the bound; once delivered it may go', async () => {
	const s = store(200);
	await putJob(s, 'needed', 80);
	s.inUse.use('needed');
	for (let i = 0; i < 4; i++) await putJob(s, `later${i}`, 80);
	await pruneNow(s);
	expect(await s.results.has('needed')).toBe(true);
	s.inUse.done('needed');
	await putJob(s, 'last', 80);
	await pruneNow(s);
	expect(await s.results.has('needed')).toBe(false); // the oldest, no longer needed: the first to go
	expect(await s.results.has('last')).toBe(true);
});

it("another process's results younger than spareRecentMs stay; this process's own go oldest first unless in use", async () => {
	const dir = path.join(temp.dir, 'results-only');
	const options = (writer: string) => ({ maxBytes: 250, ttlMs: DAY, spareRecentMs: 60_000, writer, now: () => clock, inUse: () => false });
	const theirs = new ResultStore(dir, options('process-B'));
	const mine = new ResultStore(dir, options('process-A'));
	await theirs.put('theirs', Buffer.alloc(100, 't'), meta);
	clock += 1000;
	for (const key of ['mine0', 'mine1']) {
		await mine.put(key, Buffer.alloc(100, key), meta);
		clock += 1000;
	}
	await mine.prune(); // 300 bytes over 250: B's young result stays, A's oldest goes
	expect(await mine.has('theirs')).toBe(true);
	expect(await mine.has('mine0')).toBe(false);
	expect(await mine.has('mine1')).toBe(true);
});

it('under pressure, settled journal records go (failed, stored without a result), never a job still submitting or submitted', async () => {
	const s = store(64);
	await s.journal.submitting('running', start('job-running'));
	await s.journal.submitting('acked', start('job-acked'));
	await s.journal.submitted('acked', { taskId: 'task-acked' });
	for (let i = 0; i < 300; i++) {
		await s.journal.submitting(`done${i}`, start(`job-done${i}`));
		await s.journal.failed(`done${i}`, 'moderated');
	}
	clock += 5 * 60_000; // settled a while ago
	const size = await pruneNow(s);
	expect(size!.totalBytes).toBeLessThanOrEqual(56 * KB);
	expect((await s.journal.read('running'))?.state).toBe('submitting');
	expect((await s.journal.read('acked'))?.state).toBe('submitted');
	expect(await s.journal.read('done0')).toBeUndefined();
});

it('kept downloads count: delivered ones of this process go under pressure, a download still being written (.part) never', async () => {
	const s = store(200);
	const downloads = path.join(s.config.dir, 'image-downloads');
	mkdirSync(downloads, { recursive: true });
	const delivered = path.join(downloads, 'delivered.png');
	const inProgress = path.join(downloads, 'streaming.part');
	writeFileSync(delivered, Buffer.alloc(120 * KB));
	writeFileSync(inProgress, Buffer.alloc(120 * KB));
	s.inUse.useFile(delivered);
	s.inUse.done(delivered); // its node handed it to n8n
	await putJob(s, 'k', 10);
	await pruneNow(s);
	expect(existsSync(delivered)).toBe(false);
	expect(existsSync(inProgress)).toBe(true);
});
