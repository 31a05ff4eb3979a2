/**
 * Whole writes (unit): a durable write syncs the data before the rename and the folder after it; a write that
 * fails leaves the old file and no temporary; the one sweep removes only old temporary files.
 */
import { promises as fs, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

import { sweepTemporaries, writeAtomic, type DiskSync } from '../../src/coordination/atomicFile';
import { useTempDir } from '../store/tempStore';

const temp = useTempDir();

it('durable: the data is synced before the rename, the folder after it', async () => {
	const file = path.join(temp.dir, 'record.json');
	writeFileSync(file, 'old');
	const seen: string[] = [];
	const sync: DiskSync = async (target, what) => {
		seen.push(`${what}: ${path.basename(target) === 'record.json' ? 'record' : target === temp.dir ? 'folder' : 'temporary'} holds ${what === 'file' ? await fs.readFile(target, 'utf8') : readFileSync(file, 'utf8')}`);
	};
	await writeAtomic(file, 'new', { durable: true, sync });
	expect(seen).toEqual(['file: temporary holds new', 'folder: folder holds new']);
	expect(readFileSync(file, 'utf8')).toBe('new');
	expect(readdirSync(temp.dir)).toEqual(['record.json']);
});

it('not durable: no sync; the file is replaced whole, readable by its owner only', async () => {
	const file = path.join(temp.dir, 'record.json');
	const seen: string[] = [];
	await writeAtomic(file, Buffer.from('bytes'), { durable: false, sync: async (target) => void seen.push(target) });
	expect(seen).toEqual([]);
	expect(readFileSync(file, 'utf8')).toBe('bytes');
	expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
});

it('a failed write leaves the old file and no temporary file', async () => {
	const file = path.join(temp.dir, 'record.json');
	writeFileSync(file, 'old');
	const failing: DiskSync = async () => Promise.reject(Object.assign(new Error('I/O error'), { code: 'EIO' }));
	await expect(writeAtomic(file, 'new', { durable: true, sync: failing })).rejects.toMatchObject({ code: 'EIO' });
	expect(readFileSync(file, 'utf8')).toBe('old');
	expect(readdirSync(temp.dir)).toEqual(['record.json']);
});

it('the sweep removes temporary files older than the bound, and nothing else', async () => {
	const old = new Date(Date.now() - 2 * 3_600_000);
	for (const name of ['.a.json.1.x.tmp', 'b.json.2.y.tmp', '.fresh.json.3.z.tmp', 'keep.json']) writeFileSync(path.join(temp.dir, name), '');
	for (const name of ['.a.json.1.x.tmp', 'b.json.2.y.tmp', 'keep.json']) utimesSync(path.join(temp.dir, name), old, old);
	await sweepTemporaries(temp.dir, 3_600_000);
	expect(readdirSync(temp.dir).sort()).toEqual(['.fresh.json.3.z.tmp', 'keep.json']);
	await sweepTemporaries(path.join(temp.dir, 'missing'), 0); // never throws
});
