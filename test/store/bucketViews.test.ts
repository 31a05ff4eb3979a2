/**
 * The journal's bucket views (src/store/bucketViews.ts) on real files: after any mix of appends (this process's,
 * through the kept handles, and another's), torn lines, compactions (a rename over the file), cuts and edits that
 * change the size, a read gives exactly what reading the file whole gives: the latest entry of each name and the
 * damaged lines.
 */
import { appendFileSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { crc32 } from 'node:zlib';

import { appendToFile } from '../../src/store/appendFiles';
import { BucketViews } from '../../src/store/bucketViews';
import { latestByName, parseBucket } from '../../src/store/journalLog';
import { useTempDir } from './tempStore';

const temp = useTempDir();

/** What reading `file` whole gives. */
function whole(file: string): { latest: Record<string, unknown>; damaged: number } {
	let text = '';
	try {
		text = readFileSync(file, 'utf8');
	} catch {
		// absent: empty
	}
	const { entries, damaged } = parseBucket(text);
	return { latest: Object.fromEntries([...latestByName(entries)].map(([name, entry]) => [name, entry])), damaged };
}

async function viewed(views: BucketViews, file: string): Promise<{ latest: Record<string, unknown>; damaged: number }> {
	const view = await views.read(file);
	return { latest: Object.fromEntries(view.latest), damaged: view.damaged };
}

/** A small deterministic random source (the run is the same each time). */
function random(seed: number): () => number {
	let state = seed;
	return () => ((state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

it('after every change of the file, a read equals reading the file whole', async () => {
	const views = new BucketViews();
	const file = path.join(temp.dir, '00.log');
	const next = random(7);
	const line = (i: number) => `\n${JSON.stringify({ i })}\n`; // not a checksummed entry: a damaged line
	for (let step = 0; step < 400; step++) {
		const name = `key:${Math.floor(next() * 12)}`;
		const entry = { name, time: step, rev: Math.floor(next() * 5), value: { step } };
		const what = next();
		if (what < 0.45) {
			// this process appends (through its kept handle) to the bucket file directly
			await appendToFile(file, Buffer.from(`\n${encodeLine(entry)}\n`));
		} else if (what < 0.6) {
			appendFileSync(file, `\n${encodeLine(entry)}\n`); // another process appends
		} else if (what < 0.68) {
			appendFileSync(file, `\n${encodeLine(entry).slice(0, 20)}`); // a writer killed mid-line (torn)
		} else if (what < 0.74) {
			appendFileSync(file, line(step)); // a damaged line
		} else if (what < 0.8) {
			const kept = parseBucket(safeRead(file)).entries.filter(() => next() < 0.5); // a compaction
			writeFileSync(`${file}.tmp`, kept.map((e) => `\n${encodeLine(e)}\n`).join(''));
			renameSync(`${file}.tmp`, file);
		} else if (what < 0.84) {
			const size = safeRead(file).length;
			if (size > 0) truncateSync(file, Math.floor(size * next())); // cut short
		} else if (what < 0.88) {
			const text = safeRead(file);
			if (text.length > 40) writeFileSync(file, text.slice(0, 10) + 'XX' + text.slice(10)); // changed in place, longer
		} else if (what < 0.9) {
			rmSync(file, { force: true });
		}
		expect(await viewed(views, file)).toEqual(whole(file));
	}
});

it('reads of a file unchanged since the last one, and of one grown (through the kept handle or not), give what a whole read gives', async () => {
	const views = new BucketViews();
	const file = path.join(temp.dir, 'ab.log');
	await appendToFile(file, Buffer.from(`\n${encodeLine({ name: 'key:a', time: 1, rev: 1, value: 'submitting' })}\n`));
	expect(await viewed(views, file)).toEqual(whole(file));
	expect(await viewed(views, file)).toEqual(whole(file));
	await appendToFile(file, Buffer.from(`\n${encodeLine({ name: 'key:a', time: 2, rev: 2, value: 'submitted' })}\n`));
	appendFileSync(file, `\n${encodeLine({ name: 'key:b', time: 2, rev: 1, value: 'other' })}\n`);
	const grown = await views.read(file);
	expect(grown.latest.get('key:a')?.value).toBe('submitted');
	expect(grown.latest.get('key:b')?.value).toBe('other');
	expect(await viewed(views, file)).toEqual(whole(file));
});

function safeRead(file: string): string {
	try {
		return readFileSync(file, 'utf8');
	} catch {
		return '';
	}
}

/** An entry's line as journalLog.ts writes it (checksum, JSON), without its newlines. */
function encodeLine(entry: { name: string; time: number; rev?: number; value: unknown }): string {
	const json = JSON.stringify({ n: entry.name, t: entry.time, r: entry.rev, v: entry.value });
	const sum = (crc32(json) >>> 0).toString(16).padStart(8, '0');
	return `${sum} ${json}`;
}
