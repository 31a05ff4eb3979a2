/**
 * The download folder of clips the store did not keep (Cache Off): a finished clip lives as long as the pool may
 * still hand it to a collector (COMFLY_RESULT_TTL_SECONDS, plus an hour), not a fixed day; a partial download
 * (`.part`, left by a killed process) outlives the longest job (24 h) before it is swept.
 */
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import * as path from 'node:path';

import { downloadDir, sweepDownloads } from '../../src/fluxN8n/downloadFolders';
import { reloadSettings } from '../../src/config';
import { getStore } from '../../src/store';

const videoDownloadDir = () => downloadDir('video');
const sweepVideoDownloads = (now: number) => sweepDownloads(getStore(), now);

const HOUR = 3600_000;
const NOW = Date.parse('2026-01-10T12:00:00Z');

async function fileAged(name: string, ageMs: number): Promise<void> {
	const file = path.join(videoDownloadDir(), name);
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
	await mkdir(videoDownloadDir(), { recursive: true });
});

it('with the default 1 h result retention, removes finished clips after 2 h (not a day), keeps partial downloads for 25 h', async () => {
	delete process.env.COMFLY_RESULT_TTL_SECONDS;
	reloadSettings();
	await fileAged('fresh.mp4', HOUR);
	await fileAged('stale.mp4', 3 * HOUR);
	await fileAged('writing.mp4.part', 20 * HOUR);
	await fileAged('killed.mp4.part', 26 * HOUR);
	await sweepVideoDownloads(NOW);
	expect((await readdir(videoDownloadDir())).sort()).toEqual(['fresh.mp4', 'writing.mp4.part']);
});

it('keeps a finished clip as long as a longer result retention lets the pool hand it out', async () => {
	process.env.COMFLY_RESULT_TTL_SECONDS = String(3 * 24 * 3600);
	reloadSettings();
	await fileAged('held.mp4', 48 * HOUR);
	await fileAged('expired.mp4', 74 * HOUR);
	await sweepVideoDownloads(NOW);
	expect(await readdir(videoDownloadDir())).toEqual(['held.mp4']);
});
