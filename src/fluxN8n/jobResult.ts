/**
 * What one FLUX job (image or clip; a draft clip with its draft cache) leaves in the pool's registry: never the
 * result's bytes when they are on disk, only where they are — its key in the result store, or (Cache Off, or the
 * store could not keep it) a file in the download folder. Skip Error turns a failure into `skipped_error` with the redacted reason (and, for images, the
 * white placeholder's bytes). Bytes are held only by a placeholder and by an image whose download folder could
 * not be written (then it was downloaded into memory).
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, linkSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { Readable } from 'node:stream';

import type { DownloadedFile } from '../flux/downloadFile';
import { getStore, partKey, type NewResultMeta, type Store } from '../store';
import { READ_CHUNK_BYTES } from '../store/resultStore';
import { NOT_KEPT } from './paidJobRules';

export interface JobResult {
	outcome: 'success' | 'skipped_error';
	/** The result in memory (a placeholder, or an image download that could not go to disk). */
	buffer?: Buffer;
	/** The result's key in the result store, when it is stored there. */
	storeKey?: string;
	/** The result's file, when it is not stored (Cache Off, or a store fault); removed by the download sweep. */
	filePath?: string;
	/** Length of the result in bytes. */
	byteLength?: number;
	/**
	 * True when this process hashed the stored bytes moments ago (stored them as they arrived, or read a stored
	 * result through its integrity check to serve it): the node reads them back without hashing again.
	 */
	fresh?: boolean;
	mimeType: string;
	fileExtension: string;
	/** The upstream FLUX task id, when a task was created. */
	taskId?: string;
	/** True when the result came from the result store (no new paid job). */
	cached?: boolean;
	/** What the job cost as the API reported it (credits); null: it said nothing. A cached result costs nothing (reported as 0). */
	cost?: number | null;
	/** Redacted reason, for `skipped_error`. */
	error?: string;
	errorKind?: string;
	/** A FLUX 3 Video draft: its draft cache goes with the clip. */
	draft?: true;
	/** A draft's cache (opaque bytes), kept as the clip is: a store part of the clip's key, or a file. */
	draftCache?: ResultFile;
}

/** Where one file of a result is (see JobResult's fields of the same names). */
export type ResultFile = Pick<JobResult, 'storeKey' | 'filePath' | 'byteLength' | 'fresh'>;

/** A draft cache's part name in the store (partKey) and its binary property on the item; its type. */
export const DRAFT_CACHE = 'draftCache';
export const DRAFT_CACHE_MIME_TYPE = 'application/octet-stream';

/** The files of a result: its own, and a draft's cache. */
export const resultFiles = (result: JobResult): ResultFile[] => (result.draftCache ? [result, result.draftCache] : [result]);

/** A finished download: a verified file (a draft's cache beside it), or (an image whose folder could not be written) bytes in memory. */
export type Download = ((DownloadedFile & { draftCache?: DownloadedFile }) | { buffer: Buffer; mimeType: string; fileExtension: string }) & { taskId: string; cost?: number };

/**
 * What an image result weighs against the pool's retained-results bound: bytes in memory, and a download file kept
 * for the collector (Cache Off) as well, so the bound keeps its meaning for unstored results; a stored one weighs 0.
 */
export function imageJobResultSize(result: JobResult): number {
	if (result.buffer) return result.buffer.byteLength;
	return result.filePath !== undefined ? (result.byteLength ?? 0) : 0;
}

/**
 * The result (or its `file`: a draft's cache) as n8n's binary data helpers take it: its bytes, or a stream of its
 * stored content (integrity-checked while read unless fresh) or file. Throws naming the task when it is gone.
 */
export async function resultSource(result: JobResult, file: ResultFile = result): Promise<Buffer | Readable> {
	if (file === result && result.buffer) return result.buffer;
	if (file.storeKey !== undefined) {
		const stored = await getStore().results.openStream(file.storeKey, { verify: !file.fresh });
		if (stored) return stored.stream;
	}
	if (file.filePath !== undefined && (await stat(file.filePath).then(() => true, () => false))) return createReadStream(file.filePath, { highWaterMark: READ_CHUNK_BYTES });
	const noun = file !== result ? 'draft cache' : result.mimeType.startsWith('video/') ? 'video' : 'image';
	throw new Error(`The ${noun} of task ${result.taskId ?? '(unknown)'} is no longer in the result store (removed or evicted since the job ended); run the workflow again`);
}

/** Where a download goes: stored in the result store (a reference, the file adopted: no copy), or left as its file, or in memory. */
async function place(store: Store, key: string, cacheMode: string, download: Download): Promise<JobResult> {
	const { mimeType, fileExtension, taskId } = download;
	const base = { outcome: 'success' as const, mimeType, fileExtension, taskId, cached: false, cost: download.cost ?? null };
	if ('buffer' in download) {
		const kept = cacheMode !== 'off' && (await store.results.put(key, download.buffer, { mimeType, fileExtension, taskId }));
		return kept ? { ...base, storeKey: key, byteLength: download.buffer.length } : { ...base, buffer: download.buffer, byteLength: download.buffer.length };
	}
	const storeKey = cacheMode === 'off' ? undefined : key;
	const cache = download.draftCache;
	if (!cache) return { ...base, ...(await keepFile(store, storeKey, download, { mimeType, fileExtension, taskId })) };
	const draftCache = await keepFile(store, storeKey && partKey(storeKey, DRAFT_CACHE), cache, { mimeType: cache.mimeType, fileExtension: cache.fileExtension, taskId });
	// A draft is stored only once its cache is: a stored draft is whole (else both stay files).
	const clip = await keepFile(store, draftCache.storeKey && storeKey, download, { mimeType, fileExtension, taskId, parts: [DRAFT_CACHE] });
	return { ...base, ...clip, draft: true, draftCache };
}

/** A file stored under `key` (adopted: it became the store's content), else (no key or no integrity, a store fault) left as the file. */
async function keepFile(store: Store, key: string | undefined, file: DownloadedFile, meta: NewResultMeta): Promise<ResultFile> {
	const { integrity } = file;
	const kept = key !== undefined && integrity !== undefined && (await store.results.adoptFile(key, { ...file, integrity }, meta));
	return kept ? { storeKey: key, byteLength: file.byteLength, fresh: true } : { filePath: file.filePath, byteLength: file.byteLength };
}

/**
 * Keep the download (unless Cache is Off) and advance the journal; a store fault never loses the result. The
 * result holds no bytes once they are on disk: a store key, or the download file.
 */
export async function keepResult(store: Store, key: string, cacheMode: string, download: Download): Promise<JobResult> {
	const placed = await place(store, key, cacheMode, download);
	if (placed.storeKey !== undefined && (await store.journal.stored(key))) return placed;
	// Cache Off leaves an earlier stored result of this key reusable; otherwise a re-run is a new job.
	if (cacheMode === 'off' && (await store.results.has(key)) && (await store.journal.stored(key))) return placed;
	await store.journal.failed(key, cacheMode === 'off' ? 'delivered; not kept (Cache: Off)' : 'delivered; the result store could not keep it', [], NOT_KEPT);
	return placed; // stored but not journaled: the reference still reads the bytes
}

/**
 * A result left as a file (Cache Off) belongs to the flight's owner; each caller that joined gets a hard link of its
 * own (made synchronously as the flight settles, before the owner can remove its file), so every caller may remove
 * its file once delivered. Where no link can be made (a filesystem without hard links) the callers share the one
 * file: removeDeliveredFile leaves it to the last of them.
 */
export function ownCopy(result: JobResult): JobResult {
	const own = { ...result, ...linkedCopy(result) };
	return result.draftCache ? { ...own, draftCache: linkedCopy(result.draftCache) } : own;
}

function linkedCopy(file: ResultFile): ResultFile {
	if (file.filePath === undefined) return file;
	const extension = path.extname(file.filePath);
	const own = `${file.filePath.slice(0, file.filePath.length - extension.length)}-${randomUUID()}${extension}`;
	try {
		linkSync(file.filePath, own);
	} catch {
		return file; // already gone: resultSource says so, naming the task
	}
	return { ...file, filePath: own };
}

/**
 * The serial node has handed n8n a result left as a file (delivered): the file is removed and forgotten, unless a
 * slot of this process still needs that same file (callers of one flight that could not get a link of their own
 * share it; a twin's slot waits for its collector, and then the download sweep removes it).
 */
export async function removeDeliveredFile(result: JobResult, store: Store = getStore()): Promise<void> {
	for (const { filePath: file } of resultFiles(result)) {
		if (file === undefined || store.inUse.has(file)) continue;
		await rm(file, { force: true });
		store.inUse.forgetFile(file); // its name too: a long-lived n8n serves many files
	}
}
