/**
 * A FLUX 3 Video draft's result (through undici's MockAgent: the answers' shapes, no socket): the clip and its draft
 * cache are both streamed into the download folder when the task is Ready, read from the singular keys or the
 * newer lists, without the API key; a failure of either leaves no file.
 */
import { flux3Video, type FluxVideoRequest } from '../../src/models';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MockAgent } from 'undici';

import { generateVideo, modelRequestBody } from '../../src/flux';
import { failureOf, fast } from './helpers';

const API = 'http://127.0.0.1:9';
const FILES = 'http://127.0.0.1:10';
const KEY = 'mock-key-0123456789abcdef';
const CLIP = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom'), Buffer.alloc(12, 1), Buffer.from('clip bytes')]);
const CACHE = Buffer.from('opaque draft cache bytes');
const json = { headers: { 'content-type': 'application/json' } };
const draft: FluxVideoRequest = { model: flux3Video, mode: 't2v', prompt: 'a product spot', aspectRatio: '16:9', resolution: 'hd', duration: 5, generateAudio: true, draft: true };

let agent: MockAgent;
let dir: string;
let downloadHeaders: Record<string, unknown>[];
beforeEach(async () => {
	agent = new MockAgent();
	agent.disableNetConnect();
	dir = await mkdtemp(path.join(tmpdir(), 'flux-draft-dl-'));
	downloadHeaders = [];
});
afterEach(async () => {
	await agent.close();
	await rm(dir, { recursive: true, force: true });
});

function answer(result: Record<string, unknown>): void {
	agent.get(API).intercept({ path: '/bfl/v1/flux-3-video', method: 'POST' }).reply(200, { id: 'task-1' }, json);
	agent.get(API).intercept({ path: '/bfl/v1/get_result?id=task-1', method: 'GET' }).reply(200, { id: 'task-1', status: 'Ready', result, cost: 7 }, json);
}

function serve(file: string, bytes: Buffer, status = 200, headers: Record<string, string> = {}): void {
	agent
		.get(FILES)
		.intercept({ path: `/files/${file}`, method: 'GET' })
		.reply((opts) => {
			downloadHeaders.push(opts.headers as Record<string, unknown>);
			return { statusCode: status, data: bytes, responseOptions: { headers } };
		})
		.persist();
}

const run = (request: FluxVideoRequest = draft) => generateVideo({ apiStyle: 'relay', baseUrl: API, apiKey: KEY }, request, fast({ testHooks: { dispatcher: agent }, downloadDir: dir }));

it('a draft sends draft: true; Enhance a Draft sends its cache and nothing else; no draft, no draft field', () => {
	expect(modelRequestBody(draft)).toMatchObject({ mode: 't2v', prompt: 'a product spot', draft: true });
	expect(modelRequestBody<FluxVideoRequest>({ ...draft, draft: false })).not.toHaveProperty('draft');
	expect(modelRequestBody<FluxVideoRequest>({ ...draft, mode: 'draft_enhance', draftCache: { kind: 'url', url: `${FILES}/files/cache.bin` } })).toEqual({ mode: 'draft_enhance', draft_cache: `${FILES}/files/cache.bin` });
});

it('a draft clip and its draft cache (singular keys) both land in the folder', async () => {
	answer({ sample: `${FILES}/files/clip.mp4`, draft_cache: `${FILES}/files/cache.bin` });
	serve('clip.mp4', CLIP);
	serve('cache.bin', CACHE);
	const video = await run();
	expect(await readFile(video.filePath)).toEqual(CLIP);
	expect(video.draftCache).toMatchObject({ byteLength: CACHE.length, mimeType: 'application/octet-stream', fileExtension: 'bin' });
	expect(await readFile(video.draftCache?.filePath ?? '')).toEqual(CACHE);
	expect((await readdir(dir)).sort()).toEqual([path.basename(video.filePath), path.basename(video.draftCache?.filePath ?? '')].sort());
	expect(video.cost).toBe(7);
	// The signed URLs authorise themselves: neither download carries the key.
	expect(downloadHeaders).toHaveLength(2);
	for (const headers of downloadHeaders) expect(JSON.stringify(headers)).not.toContain(KEY);
});

it('newer answers list them (samples, draft_caches): the first of each', async () => {
	answer({ samples: [`${FILES}/files/clip.mp4`, `${FILES}/files/other.mp4`], draft_caches: [`${FILES}/files/cache.bin`] });
	serve('clip.mp4', CLIP);
	serve('cache.bin', CACHE);
	const video = await run();
	expect(await readFile(video.filePath)).toEqual(CLIP);
	expect(await readFile(video.draftCache?.filePath ?? '')).toEqual(CACHE);
});

it('a clip without a draft cache (not a draft) has none', async () => {
	answer({ sample: `${FILES}/files/clip.mp4` });
	serve('clip.mp4', CLIP);
	const video = await run({ ...draft, draft: false });
	expect(video.draftCache).toBeUndefined();
	expect(await readdir(dir)).toEqual([path.basename(video.filePath)]);
});

it('a draft cache over 128 MB fails the job as too_large, and the clip downloaded beside it is removed', async () => {
	answer({ sample: `${FILES}/files/clip.mp4`, draft_cache: `${FILES}/files/cache.bin` });
	serve('clip.mp4', CLIP);
	serve('cache.bin', CACHE, 200, { 'content-length': String(129 * 1024 * 1024) });
	const err = await failureOf(run());
	expect(err.kind).toBe('too_large');
	expect(err.message).toMatch(/draft cache is larger than the 128 MB/);
	expect(await readdir(dir)).toEqual([]);
});

it('a draft cache that cannot be downloaded fails the job; no file is left', async () => {
	answer({ sample: `${FILES}/files/clip.mp4`, draft_cache: `${FILES}/files/cache.bin` });
	serve('clip.mp4', CLIP);
	serve('cache.bin', Buffer.from('gone'), 404);
	const err = await failureOf(run());
	expect(err.kind).not.toBe('too_large');
	expect(await readdir(dir)).toEqual([]);
});

it('an empty draft cache is refused; no file is left', async () => {
	answer({ sample: `${FILES}/files/clip.mp4`, draft_cache: `${FILES}/files/cache.bin` });
	serve('clip.mp4', CLIP);
	serve('cache.bin', Buffer.alloc(0));
	const err = await failureOf(run());
	expect(err.message).toMatch(/draft cache is empty/);
	expect(await readdir(dir)).toEqual([]);
});
