import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

import { againIfFolderVanished, removeEmptyFolders } from '../../src/store/cacheBackend';
import { useTempDir } from './tempStore';

const temp = useTempDir();

describe('removeEmptyFolders', () => {
	it('removes the file’s folder and its parent when empty, never the root', async () => {
		const leaf = path.join(temp.dir, 'ab', 'cd');
		mkdirSync(leaf, { recursive: true });
		await removeEmptyFolders(temp.dir, path.join(leaf, 'gone-file'));
		expect(existsSync(path.join(temp.dir, 'ab'))).toBe(false);
		expect(existsSync(temp.dir)).toBe(true);
	});

	it('stops at a folder that still holds something', async () => {
		const leaf = path.join(temp.dir, 'ab', 'cd');
		mkdirSync(leaf, { recursive: true });
		writeFileSync(path.join(temp.dir, 'ab', 'other'), 'x');
		await removeEmptyFolders(temp.dir, path.join(leaf, 'gone-file'));
		expect(existsSync(leaf)).toBe(false);
		expect(existsSync(path.join(temp.dir, 'ab', 'other'))).toBe(true);
	});

	it('leaves a folder with a file in place', async () => {
		const leaf = path.join(temp.dir, 'ab', 'cd');
		mkdirSync(leaf, { recursive: true });
		writeFileSync(path.join(leaf, 'kept'), 'x');
		await removeEmptyFolders(temp.dir, path.join(leaf, 'gone-file'));
		expect(existsSync(path.join(leaf, 'kept'))).toBe(true);
	});
});

describe('againIfFolderVanished', () => {
	it('writes once more after ENOENT (its folder was removed as empty meanwhile)', async () => {
		let calls = 0;
		const result = await againIfFolderVanished(async () => {
			calls += 1;
			if (calls === 1) throw Object.assign(new Error('gone'), { code: 'ENOENT' });
			return 'written';
		});
		expect(result).toBe('written');
		expect(calls).toBe(2);
	});

	it('does not retry other errors, and gives up after the second ENOENT', async () => {
		let calls = 0;
		await expect(
			againIfFolderVanished(async () => {
				calls += 1;
				throw Object.assign(new Error('full'), { code: 'ENOSPC' });
			}),
		).rejects.toThrow('full');
		expect(calls).toBe(1);
		calls = 0;
		await expect(
			againIfFolderVanished(async () => {
				calls += 1;
				throw Object.assign(new Error('gone'), { code: 'ENOENT' });
			}),
		).rejects.toThrow('gone');
		expect(calls).toBe(2);
	});
});
