/**
 * The streaming image download (generateImageFile / awaitImageFile → downloadImageFile) against the simulator's
 * download faults: every path leaves either one finished `<uuid>.<ext>` (the caller's, hashed as it was written)
 * or nothing in the download folder; a folder that cannot be written falls back to memory (the image is not lost).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { readPromptFromPng, type RelaySimulator } from '../../relay-sim';
import { generateImageFile, isImageFile, type DownloadedImageFile } from '../../src/flux';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { credsFor, failureOf, FAST, requestFor, uniquePrompt } from './helpers';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 0, imageBytes: 96 * 1024 }, (started) => (sim = started));

let dir: string;
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'flux-image-dl-'));
});
afterEach(async () => {
	await rm(dir, { recursive: true, force: true });
});

const run = (prompt: string, extra: { maxDownloadBytes?: number; downloadDir?: string; hash?: boolean } = {}) =>
	generateImageFile(credsFor(sim), requestFor(prompt), { ...FAST, downloadDir: dir, ...extra });

async function asFile(image: Awaited<ReturnType<typeof run>>): Promise<DownloadedImageFile> {
	if (!isImageFile(image)) throw new Error('expected the image in a file');
	return image;
}

it('an image arrives as one finished <uuid>.png holding its prompt, its sha256 integrity that of its bytes; no .part left', async () => {
	const prompt = uniquePrompt('file');
	const image = await asFile(await run(prompt));
	expect(await readdir(dir)).toEqual([path.basename(image.filePath)]);
	expect(image.filePath).toMatch(/^.*[0-9a-f-]{36}\.png$/);
	expect(image).toMatchObject({ mimeType: 'image/png', fileExtension: 'png', byteLength: 96 * 1024 });
	const bytes = await readFile(image.filePath);
	expect(readPromptFromPng(bytes)).toBe(prompt);
	expect(image.integrity).toBe(`sha256-${createHash('sha256').update(bytes).digest('base64')}`);
	expect(sim.log.downloads).toBe(1);
});

it('hash: false (a result nothing will store): the same finished file, without an integrity', async () => {
	const prompt = uniquePrompt('unhashed');
	const image = await asFile(await run(prompt, { hash: false }));
	expect(await readdir(dir)).toEqual([path.basename(image.filePath)]);
	expect(image).toMatchObject({ mimeType: 'image/png', fileExtension: 'png', byteLength: 96 * 1024 });
	expect(image.integrity).toBeUndefined();
	expect(readPromptFromPng(await readFile(image.filePath))).toBe(prompt);
});

it('a truncated body is retried; the cut-off attempt leaves no file', async () => {
	const prompt = uniquePrompt('truncated');
	sim.setFault(prompt, { on: 'download', truncated: true });
	const err = await failureOf(run(prompt));
	expect(err.kind).toBe('download_failed');
	expect(err.message).toMatch(/truncated|cut off/);
	expect(await readdir(dir)).toEqual([]);
});

it('a chunked image larger than the cap fails as too_large while streaming; nothing left on disk', async () => {
	const prompt = uniquePrompt('oversized');
	sim.setFault(prompt, { on: 'download', sizeBytes: 300 * 1024, chunked: true });
	const err = await failureOf(run(prompt, { maxDownloadBytes: 100 * 1024 }));
	expect(err.kind).toBe('too_large');
	expect(await readdir(dir)).toEqual([]);
});

it('an HTML body is not an image (magic bytes of the first chunk); nothing left on disk', async () => {
	const prompt = uniquePrompt('html');
	sim.setFault(prompt, { on: 'download', nonImage: true });
	const err = await failureOf(run(prompt));
	expect(err.kind).toBe('not_an_image');
	expect(err.message).toMatch(/not a PNG, JPEG or WebP image/);
	expect(await readdir(dir)).toEqual([]);
});

it('a download folder that cannot be written (a file in its place): the image is downloaded into memory instead', async () => {
	const prompt = uniquePrompt('no folder');
	const blocked = path.join(dir, 'not-a-folder');
	await writeFile(blocked, 'a file where the folder should be');
	const image = await run(prompt, { downloadDir: blocked });
	expect(isImageFile(image)).toBe(false);
	if (isImageFile(image)) return;
	expect(readPromptFromPng(image.buffer)).toBe(prompt);
	expect(sim.log.downloads).toBe(2); // the failed file attempt, then into memory (a download is free; the job is paid once)
	expect(sim.log.submits.length).toBe(1);
});

it('a body too slow for the job timeout fails as timeout mid-stream; its .part file is removed', async () => {
	const prompt = uniquePrompt('slow body');
	sim.setFault(prompt, { on: 'download', slowBytesPerSecond: 4096 });
	const err = await failureOf(generateImageFile(credsFor(sim), requestFor(prompt), { ...FAST, timeoutMs: 3_000, downloadDir: dir }));
	expect(err.kind).toBe('timeout');
	expect(sim.log.downloads).toBe(1);
	expect(await readdir(dir)).toEqual([]);
});

it('a download answered 503 twice is retried into a new file; only the finished image is left', async () => {
	const prompt = uniquePrompt('flaky download');
	sim.setFault(prompt, { on: 'download', status: 503, times: 2 });
	const image = await asFile(await run(prompt));
	expect(await readdir(dir)).toEqual([path.basename(image.filePath)]);
	expect(readPromptFromPng(await readFile(image.filePath))).toBe(prompt);
});
