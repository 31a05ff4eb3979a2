/**
 * The kept append handles (src/store/appendFiles.ts) on real files: every line lands in the file the path names,
 * also after a rename replaced the file (the append says so and lands in the new one when made again), after the
 * file was removed, and past the bound on kept handles; the tail is read through a kept handle only for its own file.
 */
import { existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

import { appendToFile, readKept } from '../../src/store/appendFiles';
import { useTempDir } from './tempStore';

const temp = useTempDir();
const line = (text: string) => Buffer.from(`${text}\n`);
const idOf = (file: string) => {
	const info = statSync(file, { bigint: true });
	return { dev: info.dev, ino: info.ino, size: info.size };
};

it('appends land in order, and a missing folder is made (madeFolder told once)', async () => {
	const file = path.join(temp.dir, 'a', 'b', 'log');
	let made = 0;
	for (const text of ['one', 'two', 'three']) expect(await appendToFile(file, line(text), async () => void (made += 1))).toBe(true);
	expect(readFileSync(file, 'utf8')).toBe('one\ntwo\nthree\n');
	expect(made).toBe(1);
});

it('a file replaced by a rename: the append that raced it says false (its line is in the old file), the next one lands in the new file', async () => {
	const file = path.join(temp.dir, 'log');
	await appendToFile(file, line('before'));
	writeFileSync(`${file}.new`, 'compacted\n');
	renameSync(`${file}.new`, file);
	expect(await appendToFile(file, line('raced'))).toBe(false);
	expect(await appendToFile(file, line('after'))).toBe(true);
	expect(readFileSync(file, 'utf8')).toBe('compacted\nafter\n');
});

it('a removed file: the append says false, the next one makes the file again', async () => {
	const file = path.join(temp.dir, 'log');
	await appendToFile(file, line('first'));
	rmSync(file);
	expect(await appendToFile(file, line('lost'))).toBe(false);
	expect(await appendToFile(file, line('again'))).toBe(true);
	expect(readFileSync(file, 'utf8')).toBe('again\n');
});

it('more files than handles kept, appended to at once and in turns: no line lost or doubled', async () => {
	const files = Array.from({ length: 300 }, (_, i) => path.join(temp.dir, `f${i}.log`));
	for (let round = 0; round < 3; round++) {
		const results = await Promise.all(files.map(async (file, i) => await appendToFile(file, line(`${i}:${round}`))));
		expect(results.every(Boolean)).toBe(true);
	}
	for (const [i, file] of files.entries()) expect(readFileSync(file, 'utf8')).toBe(`${i}:0\n${i}:1\n${i}:2\n`);
});

it('reads the tail through the kept handle of the same file only', async () => {
	const file = path.join(temp.dir, 'log');
	await appendToFile(file, line('one'));
	await appendToFile(file, line('two'));
	expect((await readKept(file, idOf(file), 4))?.toString()).toBe('two\n');
	const other = path.join(temp.dir, 'other');
	writeFileSync(other, 'x');
	expect(await readKept(file, idOf(other), 0)).toBeUndefined();
	expect(await readKept(path.join(temp.dir, 'never-appended'), idOf(other), 0)).toBeUndefined();
	expect(existsSync(path.join(temp.dir, 'never-appended'))).toBe(false);
});
