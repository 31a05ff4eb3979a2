/**
 * A clip the store adopted (its download file moved into the store) whose `stored` journal record then fails to
 * write is still served from the store: the result names the store key, never the download file that is gone.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

import type { FluxVideoResult } from '../../src/flux';
import { openStore } from '../../src/store';
import { keepResult } from '../../src/fluxN8n/jobResult';
import { useTempDir } from '../store/tempStore';

const keepVideo = keepResult;

const temp = useTempDir();

function downloadedClip(bytes: Buffer) {
	const dir = path.join(temp.dir, 'downloads');
	mkdirSync(dir, { recursive: true });
	const filePath = path.join(dir, 'clip.mp4');
	writeFileSync(filePath, bytes);
	const integrity = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
	return { filePath, integrity, byteLength: bytes.length, mimeType: 'video/mp4', fileExtension: 'mp4', taskId: 'task-1', cost: 1, timings: {} } as unknown as FluxVideoResult;
}

it('adopted by the store but not journaled: the store key, and the bytes read back', async () => {
	const store = openStore({ dir: path.join(temp.dir, 'store'), maxBytes: 64 * 1024 * 1024, ttlMs: 86_400_000 }, { warn: () => undefined });
	const bytes = Buffer.from('not really an mp4, but bytes');
	const clip = downloadedClip(bytes);
	store.journal.stored = async () => false; // the journal cannot be written at this moment
	const kept = await keepVideo(store, 'key-1', 'reuse', clip);
	expect(existsSync(clip.filePath)).toBe(false); // the store took the file
	expect(kept.filePath).toBeUndefined();
	expect(kept.storeKey).toBe('key-1');
	expect((await store.results.present('key-1'))?.byteLength).toBe(bytes.length);
});

it('journaled as stored: the store key (unchanged path)', async () => {
	const store = openStore({ dir: path.join(temp.dir, 'store'), maxBytes: 64 * 1024 * 1024, ttlMs: 86_400_000 }, { warn: () => undefined });
	await store.journal.submitting('key-2', { jobId: 'job-2', apiStyle: 'bfl', baseUrl: 'http://127.0.0.1:1', model: 'flux-3-video', apiKeyHash: 'ab' });
	const kept = await keepVideo(store, 'key-2', 'reuse', downloadedClip(Buffer.from('clip bytes')));
	expect((await store.journal.read('key-2'))?.state).toBe('stored');
	expect(kept.storeKey).toBe('key-2');
	expect(kept.filePath).toBeUndefined();
});
