/**
 * The journal's compact logs (src/store/journalLog.ts) on real files: the latest line of a name wins, a damaged
 * line is counted (never read as a record), a last line still being written is skipped, and a crash's torn line
 * never glues onto the next append (test/store/journalLogProcesses.integration.test.ts: compaction beside two appending processes).
 */
import { appendFileSync, readdirSync, readFileSync, readlinkSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

import * as appendFiles from '../../src/store/appendFiles';
import { diskSync, type DiskSync } from '../../src/coordination/atomicFile';
import { bucketOf, JournalLog } from '../../src/store/journalLog';
import { until } from '../support/until';
import { useTempDir } from './tempStore';

const temp = useTempDir();

describe('JournalLog', () => {
	it('the latest line of a name wins (highest time; equal times: the later line)', async () => {
		const log = new JournalLog(path.join(temp.dir, 'journal'));
		await log.appendAll([{ name: 'key:a', time: 5, value: { state: 'submitted' } }]);
		await log.appendAll([{ name: 'key:a', time: 3, value: { state: 'submitting' } }]); // carried over late by a compaction
		await log.appendAll([{ name: 'key:b', time: 1, value: 'one' }]);
		await log.appendAll([{ name: 'key:b', time: 1, value: 'two' }]);
		expect((await log.latest('key:a')).entry?.value).toEqual({ state: 'submitted' });
		expect((await log.latest('key:b')).entry?.value).toBe('two');
		expect(await log.latest('key:none')).toMatchObject({ entry: undefined, damaged: 0 });
	});

	it('a damaged line (checksum or JSON wrong) is counted and never read as a record; the earlier line stands', async () => {
		const dir = path.join(temp.dir, 'journal');
		const log = new JournalLog(dir);
		await log.appendAll([{ name: 'key:k', time: 1, value: { state: 'submitting' } }]);
		await log.appendAll([{ name: 'key:k', time: 2, value: { state: 'submitted' } }]);
		const file = log.fileOf(bucketOf('key:k'));
		writeFileSync(file, readFileSync(file, 'utf8').replace('"submitted"', '"stored"')); // a changed byte
		expect(await log.latest('key:k')).toMatchObject({ entry: { value: { state: 'submitting' } }, damaged: 1 });
	});

	it('a line cut by a crash (a truncated file) is skipped while last, counted once later lines follow, and never spoils the next line', async () => {
		const log = new JournalLog(path.join(temp.dir, 'journal'));
		await log.appendAll([{ name: 'key:k', time: 1, value: { state: 'submitting' } }]);
		await log.appendAll([{ name: 'key:k', time: 2, value: { state: 'submitted' } }]);
		const file = log.fileOf(bucketOf('key:k'));
		truncateSync(file, readFileSync(file).length - 10);
		expect(await log.latest('key:k')).toMatchObject({ entry: { value: { state: 'submitting' } }, damaged: 0 });
		await log.appendAll([{ name: 'key:k', time: 3, value: { state: 'stored' } }]);
		expect(await log.latest('key:k')).toMatchObject({ entry: { value: { state: 'stored' } }, damaged: 1 });
		appendFileSync(file, '0000000'); // an append in progress (no newline yet)
		expect((await log.latest('key:k')).damaged).toBe(1);
	});

	it('compact keeps what the filter keeps, one line per name, and drops damaged lines', async () => {
		const log = new JournalLog(path.join(temp.dir, 'journal'));
		for (let i = 0; i < 5; i++) await log.appendAll([{ name: 'key:keep', time: i, value: i }]);
		await log.appendAll([{ name: 'key:drop', time: 1, value: 'x' }]);
		const bucket = bucketOf('key:keep');
		appendFileSync(log.fileOf(bucket), '\ngarbage\n');
		const kept = await log.compact(bucket, (latest) => latest.filter((e) => e.name !== 'key:drop'));
		expect(kept.damaged).toBe(1);
		const scan = await log.scan(bucket);
		expect(scan).toMatchObject({ damaged: 0 });
		expect(scan.entries.filter((e) => e.name === 'key:keep')).toEqual([{ name: 'key:keep', time: 4, value: 4 }]);
		// The records kept, and the compaction's two marks (compactionMarks.ts), and nothing else; `after` is the file's size.
		expect(scan.entries.map((e) => e.name).sort()).toEqual(['\u0000compaction', '\u0000compaction', 'key:keep']);
		expect(kept.after).toBe(statSync(log.fileOf(bucket)).size);
	});

	it('a durable line reaches the write-ahead file only after its bucket (a reader never takes it for a line the bucket lost)', async () => {
		const dir = path.join(temp.dir, 'journal');
		const log = new JournalLog(dir);
		let letGo!: () => void;
		const gate = new Promise<void>((resolve) => (letGo = resolve));
		const bucketFile = log.fileOf(bucketOf('key:k'));
		const realAppend = appendFiles.appendToFile;
		const append = jest.spyOn(appendFiles, 'appendToFile').mockImplementation(async (file, bytes, madeFolder) => {
			if (file === bucketFile) await gate; // the bucket's write is slow
			return await realAppend(file, bytes, madeFolder);
		});
		try {
			const writing = log.appendAll([{ name: 'key:k', time: 1, rev: 1, value: { state: 'submitting' } }], { durable: true });
			await until(() => append.mock.calls.some(([file]) => file === bucketFile), 'the bucket write started');
			// Each look is a few filesystem calls: ample time for a write-ahead append racing the bucket's to land.
			for (let look = 0; look < 20; look++) expect(await log.ahead.bytes()).toBe(0);
			letGo();
			await writing;
			expect(await log.ahead.bytes()).toBeGreaterThan(0);
		} finally {
			append.mockRestore();
		}
	});

	it('no handle of a compacted bucket or a rotated write-ahead file stays open (their disk space is freed)', async () => {
		const dir = path.join(temp.dir, 'journal');
		const log = new JournalLog(dir);
		for (let i = 0; i < 3; i++) await log.appendAll([{ name: 'key:k', time: i, rev: i, value: i }], { durable: true });
		await log.rotateAhead();
		await log.compact(bucketOf('key:k'), (latest) => latest);
		const deleted = readdirSync('/proc/self/fd').flatMap((fd) => {
			try {
				const target = readlinkSync(`/proc/self/fd/${fd}`);
				return target.startsWith(dir) && target.endsWith('(deleted)') ? [target] : [];
			} catch {
				return [];
			}
		});
		expect(deleted).toEqual([]);
		expect((await log.latest('key:k')).entry?.value).toBe(2);
	});

	it('a compaction never hides a line for a moment: a reader in another process waits until the lines appended meanwhile are carried over', async () => {
		const dir = path.join(temp.dir, 'journal');
		// The compaction's syncs, held one at a time: its new file's data (it has read the old file by then), then the folder (after the rename).
		const gates: Record<'file' | 'folder', { held?: Promise<void>; release?: () => void; reached: boolean }> = { file: { reached: false }, folder: { reached: false } };
		const hold = (what: 'file' | 'folder') => void (gates[what].held = new Promise<void>((resolve) => (gates[what].release = resolve)));
		const sync: DiskSync = async (target, what) => {
			gates[what].reached = true;
			await gates[what].held;
			await diskSync(target, what);
		};
		const compactor = new JournalLog(dir, sync);
		const writer = new JournalLog(dir);
		const bucket = bucketOf('key:k');
		await writer.appendAll([{ name: 'key:k', time: 1, rev: 1, value: 'submitting' }]);
		const before = statSync(writer.fileOf(bucket)).ino;
		hold('file');
		hold('folder');
		const compacting = compactor.compact(bucket, (latest) => latest);
		await until(() => gates.file.reached, 'the compaction read the bucket and wrote its new file');
		// Appended after the compaction read the old file, done before the rename: the compaction carries it over.
		await writer.appendAll([{ name: 'key:k', time: 2, rev: 2, value: 'submitted' }]);
		gates.file.release!();
		await until(() => gates.folder.reached && statSync(writer.fileOf(bucket)).ino !== before, 'the new file was renamed over the old one');
		const reader = new JournalLog(dir); // another process: it reads the new file whole
		const reading = reader.latest('key:k');
		gates.folder.release!();
		expect((await reading).entry).toMatchObject({ rev: 2, value: 'submitted' });
		await compacting;
		expect((await new JournalLog(dir).latest('key:k')).entry).toMatchObject({ rev: 2, value: 'submitted' });
	});
});
