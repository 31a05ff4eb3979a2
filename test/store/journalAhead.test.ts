/**
 * The write-ahead file's group commit (src/store/journalAhead.ts) on real files: whether the path still names the
 * file written and whether a rotation began are asked once per sync, after it, for every write it covers; a write
 * whose generation was rotated away while its sync waited lands in the newest generation, so no synced line is lost;
 * a generation a rotation removed is never made again (a file no rotation would fold); one made anew in a deleted
 * folder has the folder synced.
 */
import { readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';

import { diskSync, type DiskSync } from '../../src/coordination/atomicFile';
import { closeKept } from '../../src/store/appendFiles';
import { AheadLog } from '../../src/store/journalAhead';
import { parseBucket, type LogEntry } from '../../src/store/journalLog';
import { until } from '../support/until';
import { useTempDir } from './tempStore';

const temp = useTempDir();

/** File syncs the test can hold (folder syncs pass); `files` counts the file syncs, `waiting` those held. */
function heldFileSync() {
	let release: () => void = () => undefined;
	let gate: Promise<void> | undefined;
	const state = { files: 0, waiting: 0 };
	const sync: DiskSync = async (target, what) => {
		if (what === 'file') {
			state.files += 1;
			if (gate) {
				state.waiting += 1;
				await gate;
			}
		}
		await diskSync(target, what);
	};
	return { sync, state, hold: () => void (gate = new Promise<void>((resolve) => (release = resolve))), release: () => ((gate = undefined), release()) };
}

/** A journal line of `name` (journalLog.ts's format). */
function line(name: string): Buffer {
	const json = JSON.stringify({ n: name, t: 1, r: 1, v: 'submitting' });
	return Buffer.from(`\n${(crc32(json) >>> 0).toString(16).padStart(8, '0')} ${json}\n`);
}
const namesIn = async (file: string): Promise<string[]> => parseBucket(await readFile(file, 'utf8')).entries.map((entry) => entry.name).sort();

it('thirty concurrent appends share a few syncs, and every line is in the file once they resolve', async () => {
	const held = heldFileSync();
	const log = new AheadLog(path.join(temp.dir, 'journal'), held.sync);
	await log.append(line('warm-up'));
	const before = held.state.files;
	held.hold();
	const appends = Array.from({ length: 30 }, async (_, i) => await log.append(line(`key-${i}`)));
	await until(() => held.state.waiting === 1, 'the first sync is held');
	held.release();
	await Promise.all(appends);
	expect(held.state.files - before).toBeLessThanOrEqual(3);
	expect(await namesIn(path.join(temp.dir, 'journal', 'ahead-0.log'))).toEqual(['warm-up', ...Array.from({ length: 30 }, (_, i) => `key-${i}`)].sort());
});

it('a write whose generation is rotated away while its sync is held is appended again to the newest generation', async () => {
	const held = heldFileSync();
	const dir = path.join(temp.dir, 'journal');
	const log = new AheadLog(dir, held.sync);
	await log.append(line('warm-up'));
	held.hold();
	const appends = Array.from({ length: 5 }, async (_, i) => await log.append(line(`late-${i}`)));
	await until(() => held.state.waiting === 1, 'the writes wait for their sync');
	const folded: string[] = [];
	// The prune's rotation (another process's, or this one's): next generation made, the old one read, folded and removed.
	await new AheadLog(dir, diskSync).rotate(async (entries: LogEntry[]) => void folded.push(...entries.map((entry) => entry.name)));
	expect(readdirSync(dir)).toEqual(['ahead-1.log']);
	held.release();
	await Promise.all(appends);
	const late = ['late-0', 'late-1', 'late-2', 'late-3', 'late-4'];
	expect(folded.sort()).toEqual([...late, 'warm-up']); // written before the rotation read the old generation
	expect(await namesIn(path.join(dir, 'ahead-1.log'))).toEqual(late); // and, unconfirmed by their sync, written again
	expect((await log.entries()).map((entry) => entry.name).sort()).toEqual(late);
});

it('a writer idle through two rotations never makes a rotated-away generation again: its next line goes to the newest one, where the next rotation folds it', async () => {
	const dir = path.join(temp.dir, 'journal');
	const writer = new AheadLog(dir);
	await writer.append(line('early'));
	closeKept(path.join(dir, 'ahead-0.log')); // its handle closed meanwhile (the process keeps at most 128 open)
	const pruner = new AheadLog(dir); // another process's prune
	for (let i = 0; i < 2; i++) await pruner.rotate(async () => undefined);
	expect(readdirSync(dir)).toEqual(['ahead-2.log']);
	await writer.append(line('after'));
	expect(readdirSync(dir)).toEqual(['ahead-2.log']);
	expect(await namesIn(path.join(dir, 'ahead-2.log'))).toEqual(['after']);
	const folded: string[] = [];
	await pruner.rotate(async (entries) => void folded.push(...entries.map((entry) => entry.name)));
	expect(folded).toEqual(['after']);
});

it('a write-ahead file made again after its folder was deleted has the folder synced (its name survives a power cut)', async () => {
	const dir = path.join(temp.dir, 'journal');
	const syncs: string[] = [];
	const log = new AheadLog(dir, async (target, what) => {
		syncs.push(`${what} ${path.relative(temp.dir, target)}`);
		await diskSync(target, what);
	});
	await log.append(line('first'));
	expect(syncs).toContain('folder journal');
	rmSync(dir, { recursive: true, force: true });
	syncs.length = 0;
	await log.append(line('again'));
	expect(await namesIn(path.join(dir, 'ahead-0.log'))).toEqual(['again']);
	expect(syncs).toEqual(expect.arrayContaining(['file journal/ahead-0.log', 'folder journal']));
});
