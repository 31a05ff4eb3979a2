/**
 * The streaming clip download (generateVideo → downloadToDisk) against the simulator's download faults: every
 * path leaves either one finished `.mp4` (the caller's) or nothing in the download folder.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { readPromptFromMp4, type RelaySimulator } from '../../relay-sim';
import { generateVideo } from '../../src/flux';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { credsFor, failureOf, FAST, uniquePrompt } from './helpers';
import { readFile } from 'node:fs/promises';
import { flux3Video, type FluxVideoRequest } from '../../src/models';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 0, videoBytes: 64 * 1024 }, (started) => (sim = started));

let dir: string;
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'flux-video-dl-'));
});
afterEach(async () => {
	await rm(dir, { recursive: true, force: true });
});

const request = (prompt: string): FluxVideoRequest => ({ model: flux3Video, mode: 't2v', prompt, aspectRatio: 'auto', resolution: 'hd', duration: 'auto', generateAudio: true });
const run = (prompt: string, extra: { maxDownloadBytes?: number; signal?: AbortSignal } = {}) =>
	generateVideo(credsFor(sim), request(prompt), { ...FAST, downloadDir: dir, ...extra });

it('a clip arrives as one finished <uuid>.mp4 holding its prompt; no .part left', async () => {
	const prompt = uniquePrompt('clip');
	const video = await run(prompt);
	expect(await readdir(dir)).toEqual([path.basename(video.filePath)]);
	expect(video.filePath).toMatch(/\.mp4$/);
	expect(readPromptFromMp4(await readFile(video.filePath))).toBe(prompt);
});

it('a truncated body is retried; the cut-off attempt leaves no file', async () => {
	const prompt = uniquePrompt('truncated');
	sim.setFault(prompt, { on: 'download', truncated: true });
	const err = await failureOf(run(prompt));
	expect(err.kind).toBe('download_failed');
	expect(err.message).toMatch(/truncated|cut off/);
	expect(await readdir(dir)).toEqual([]);
});

it('a chunked clip larger than the cap fails as too_large; nothing left on disk', async () => {
	const prompt = uniquePrompt('oversized');
	sim.setFault(prompt, { on: 'download', sizeBytes: 300 * 1024, chunked: true });
	const err = await failureOf(run(prompt, { maxDownloadBytes: 100 * 1024 }));
	expect(err.kind).toBe('too_large');
	expect(await readdir(dir)).toEqual([]);
});

it('an HTML body is not an MP4; nothing left on disk', async () => {
	const prompt = uniquePrompt('html');
	sim.setFault(prompt, { on: 'download', nonImage: true });
	const err = await failureOf(run(prompt));
	expect(err.message).toMatch(/not an MP4 video/);
	expect(await readdir(dir)).toEqual([]);
});

it('cancelled mid-body: rejects as cancelled and removes the partial file', async () => {
	const prompt = uniquePrompt('slow');
	sim.setFault(prompt, { on: 'download', slowBytesPerSecond: 4096 });
	const controller = new AbortController();
	const pending = run(prompt, { signal: controller.signal });
	// Wait for the body to have started (a .part file exists), then cancel.
	while ((await readdir(dir)).length === 0) await new Promise((resolve) => setImmediate(resolve));
	controller.abort();
	const err = await failureOf(pending);
	expect(err.kind).toBe('cancelled');
	expect(await readdir(dir)).toEqual([]);
});
