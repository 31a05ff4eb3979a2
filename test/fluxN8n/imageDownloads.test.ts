/**
 * The download folder of images the store did not keep (Cache Off, a store fault): a finished image lives as long
 * as the pool may still hand it to a collector (COMFLY_RESULT_TTL_SECONDS, plus an hour); a partial download
 * (`.part`, left by a killed process) outlives the longest job (24 h) before it is swept.
 */
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import * as path from 'node:path';

import { downloadDir, sweepDownloads as sweepImageDownloads, sweepDownloadsNowAndThen as sweepImageDownloadsNowAndThen, SWEEP_EVERY_MS } from '../../src/fluxN8n/downloadFolders';
import { getStore } from '../../src/store';
import { reloadSettings } from '../../src/config';

const imageDownloadDir = () => downloadDir('image');

const HOUR = 3600_000;
const NOW = Date.parse('2026-01-10T12:00:00Z');

async function fileAged(name: string, ageMs: number): Promise<void> {
	const file = path.join(imageDownloadDir(), name);
	await writeFile(file, 'x');
	const when = new Date(NOW - ageMs);
	await utimes(file, when, when);
}

const saved = process.env.COMFLY_RESULT_TTL_SECONDS;
afterEach(() => {
	if (saved === undefined) delete process.env.COMFLY_RESULT_TTL_SECONDS;
	else process.env.COMFLY_RESULT_TTL_SECONDS = saved;
});
beforeEach(async () => {
	await mkdir(imageDownloadDir(), { recursive: true });
});

it('lives next to the result store (same disk: storing an image is a link, not a copy)', () => {
	expect(path.dirname(imageDownloadDir())).toBe(getStore().results.rootDir);
});

it('with the default 1 h result retention, removes finished images after 2 h, keeps partial downloads for 25 h', async () => {
	delete process.env.COMFLY_RESULT_TTL_SECONDS;
	reloadSettings();
	await fileAged('fresh.png', HOUR);
	await fileAged('stale.jpg', 3 * HOUR);
	await fileAged('writing.part', 20 * HOUR);
	await fileAged('killed.part', 26 * HOUR);
	await sweepImageDownloads(getStore(), NOW);
	expect((await readdir(imageDownloadDir())).sort()).toEqual(['fresh.png', 'writing.part']);
});

it('keeps a finished image as long as a longer result retention lets the pool hand it out', async () => {
	process.env.COMFLY_RESULT_TTL_SECONDS = String(3 * 24 * 3600);
	reloadSettings();
	await fileAged('held.webp', 48 * HOUR);
	await fileAged('expired.png', 74 * HOUR);
	await sweepImageDownloads(getStore(), NOW);
	expect(await readdir(imageDownloadDir())).toEqual(['held.webp']);
});

it("removes what a killed process left in the result store's tmp folder (a file being adopted) after 25 h", async () => {
	const tmp = path.join(getStore().results.cacheDir, 'tmp');
	await mkdir(tmp, { recursive: true });
	for (const [name, age] of [['adopt-new', HOUR], ['adopt-killed', 26 * HOUR]] as const) {
		await writeFile(path.join(tmp, name), 'x');
		await utimes(path.join(tmp, name), new Date(NOW - age), new Date(NOW - age));
	}
	await sweepImageDownloads(getStore(), NOW);
	expect(await readdir(tmp)).toEqual(['adopt-new']);
});

it('jobs sweep at most once a minute per process (a sweep stats every file: a burst of jobs must not repeat it)', async () => {
	const at = NOW + 7 * 24 * HOUR; // after any sweep an earlier test ran
	await fileAged('first.png', 3 * HOUR);
	await sweepImageDownloadsNowAndThen(getStore(), at);
	expect(await readdir(imageDownloadDir())).toEqual([]);
	await fileAged('second.png', 3 * HOUR);
	await sweepImageDownloadsNowAndThen(getStore(), at + SWEEP_EVERY_MS - 1);
	expect(await readdir(imageDownloadDir())).toEqual(['second.png']);
	await sweepImageDownloadsNowAndThen(getStore(), at + SWEEP_EVERY_MS);
	expect(await readdir(imageDownloadDir())).toEqual([]);
});
