/**
 * A FLUX 3 Video draft's result with real files: kept in the result store as the clip and its draft cache, served
 * back with both (a re-run, Cache Reuse), a draft missing its cache is a miss; Cache Off keeps both as files; the
 * collector's slot item and report row, and the serial node's binaries, carry both and say `draft: true`.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import type { IExecuteFunctions } from 'n8n-workflow';

import { buildReport } from '../../src/collect/report';
import { slotItem } from '../../src/collect/runCollector';
import type { SlotOutcome } from '../../src/collect/waitForSlots';
import { fluxCollectorParts } from '../../src/fluxN8n/fluxNode';
import { keepResult, ownCopy, removeDeliveredFile, resultSource, type JobResult } from '../../src/fluxN8n/jobResult';
import { fluxVideoNode, videoJobs } from '../../src/fluxVideoN8n/videoJobs';
import { getStore, partKey, type Store } from '../../src/store';
import { useTempDir } from '../store/tempStore';

const temp = useTempDir();
const CLIP = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom'), Buffer.alloc(12, 1), Buffer.from('draft clip')]);
const CACHE = Buffer.from('the opaque draft cache');

// The process's store (the test setup gives each test file its own folder): the nodes read results through it.
let store: Store;
beforeEach(() => {
	store = getStore();
});

function downloaded(name: string, bytes: Buffer, mimeType: string, fileExtension: string) {
	const dir = path.join(temp.dir, 'downloads');
	mkdirSync(dir, { recursive: true });
	const filePath = path.join(dir, name);
	writeFileSync(filePath, bytes);
	return { filePath, integrity: `sha256-${createHash('sha256').update(bytes).digest('base64')}`, byteLength: bytes.length, mimeType, fileExtension };
}

/** What generateVideo resolves for a draft: the clip and, beside it, its cache. */
const draftDownload = () => ({
	...downloaded('clip.mp4', CLIP, 'video/mp4', 'mp4'),
	draftCache: downloaded('cache.bin', CACHE, 'application/octet-stream', 'bin'),
	taskId: 'task-d',
	cost: 12,
});

async function bytesOf(source: Buffer | Readable): Promise<Buffer> {
	if (Buffer.isBuffer(source)) return source;
	const chunks: Buffer[] = [];
	for await (const chunk of source) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

describe('a draft in the result store', () => {
	it('is stored as the clip and its cache, journaled stored, and served back with both', async () => {
		const download = draftDownload();
		await store.journal.submitting(`key-d-${temp.dir}`, { jobId: 'job-d', apiStyle: 'relay', baseUrl: 'http://127.0.0.1:1', model: 'flux-3-video', apiKeyHash: 'ab' });
		const kept = await keepResult(store, `key-d-${temp.dir}`, 'reuse', download as never);
		expect(kept).toMatchObject({ storeKey: `key-d-${temp.dir}`, draft: true, draftCache: { storeKey: partKey(`key-d-${temp.dir}`, 'draftCache'), byteLength: CACHE.length } });
		expect(existsSync(download.filePath) || existsSync(download.draftCache.filePath)).toBe(false); // both adopted, no copy left
		expect((await store.journal.read(`key-d-${temp.dir}`))?.state).toBe('stored');

		const served = await videoJobs.readStored(store, `key-d-${temp.dir}`);
		expect(served).toMatchObject({ cached: true, draft: true, mimeType: 'video/mp4', taskId: 'task-d', byteLength: CLIP.length });
		expect(await bytesOf(await resultSource(served as JobResult))).toEqual(CLIP);
		expect(await bytesOf(await resultSource(served as JobResult, served?.draftCache))).toEqual(CACHE);
	});

	it('a stored draft whose cache is gone is a miss (never a draft without its cache)', async () => {
		await keepResult(store, `key-e-${temp.dir}`, 'reuse', draftDownload() as never);
		await store.results.remove(partKey(`key-e-${temp.dir}`, 'draftCache'));
		expect(await videoJobs.readStored(store, `key-e-${temp.dir}`)).toBeUndefined();
	});

	it('a clip that is no draft is served without a cache, as before', async () => {
		const { draftCache: _none, ...clip } = draftDownload();
		const kept = await keepResult(store, `key-f-${temp.dir}`, 'reuse', clip as never);
		expect(kept.draft).toBeUndefined();
		expect(kept.draftCache).toBeUndefined();
		expect(await videoJobs.readStored(store, `key-f-${temp.dir}`)).toMatchObject({ cached: true });
		expect((await videoJobs.readStored(store, `key-f-${temp.dir}`))?.draftCache).toBeUndefined();
	});

	it('Cache Off keeps both as files: a joined caller gets its own copy of each, and delivering removes both', async () => {
		const kept = await keepResult(store, `key-g-${temp.dir}`, 'off', draftDownload() as never);
		expect(kept.storeKey).toBeUndefined();
		expect(kept.draftCache?.storeKey).toBeUndefined();
		const copy = ownCopy(kept);
		const files = [kept.filePath, kept.draftCache?.filePath, copy.filePath, copy.draftCache?.filePath] as string[];
		expect(new Set(files).size).toBe(4);
		expect(await bytesOf(await resultSource(copy, copy.draftCache))).toEqual(CACHE);
		await removeDeliveredFile(kept, store);
		await removeDeliveredFile(copy, store);
		for (const file of files) expect(existsSync(file)).toBe(false);
	});
});

/** A node context whose binary helper reads the stream (as n8n's does) and keeps name, type and bytes. */
const ctx = {
	helpers: {
		prepareBinaryData: async (source: Buffer | Readable, fileName: string, mimeType: string) => ({ data: (await bytesOf(source)).toString('base64'), fileName, mimeType }),
	},
	getNode: () => ({ onError: 'stopWorkflow' }),
} as unknown as IExecuteFunctions;

describe('a draft slot in Concurrent Collect Videos', () => {
	it('carries the clip in the Binary Property and the cache in draftCache, and says draft: true on its slot and in the Report', async () => {
		await keepResult(store, `key-h-${temp.dir}`, 'reuse', draftDownload() as never);
		const result = (await videoJobs.readStored(store, `key-h-${temp.dir}`)) as JobResult;
		const outcome: SlotOutcome<JobResult> = {
			slot: { slot: 3, inputIndex: 0, itemIndex: 2, jobId: 'job-h' },
			status: 'success',
			taskId: 'task-d',
			result,
			timings: {},
			attempts: 1,
			cached: true,
			cost: 0,
			draft: true,
		} as SlotOutcome<JobResult>;
		const spec = { ...fluxCollectorParts(fluxVideoNode) } as never;
		const item = await slotItem(ctx, spec, outcome, { binaryPropertyName: 'clip', failureMode: 'placeholder' } as never);
		expect(item.json).toMatchObject({ slot: 3, status: 'success', draft: true });
		expect(item.binary?.clip).toMatchObject({ fileName: 'slot-03.mp4', mimeType: 'video/mp4' });
		expect(Buffer.from(String(item.binary?.clip.data), 'base64')).toEqual(CLIP);
		expect(item.binary?.draftCache).toMatchObject({ fileName: 'slot-03-draft-cache.bin', mimeType: 'application/octet-stream' });
		expect(Buffer.from(String(item.binary?.draftCache.data), 'base64')).toEqual(CACHE);
		const notDraft = { ...outcome, slot: { ...outcome.slot, slot: 4 }, draft: undefined };
		const report = buildReport([outcome, notDraft]);
		expect(report.slots[0].draft).toBe(true);
		expect(report.slots[1]).not.toHaveProperty('draft');
	});
});
