/**
 * What one FLUX job (image or clip) leaves in the pool's registry: never the result's bytes when they are on disk,
 * only where they are — its key in the result store, or (Cache Off, or the store could not keep it) a file in the
 * download folder. Skip Error turns a failure into `skipped_error` with the redacted reason (and, for images, the
 * white placeholder's bytes). Bytes are held only by a placeholder and by an image whose download folder could
 * not be written (then it was downloaded into memory).
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, linkSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';

import type { DownloadedFile } from '../flux/downloadFile';
import { getStore, type Store } from '../store';
import { READ_CHUNK_BYTES } from '../store/resultStore';
import { NOT_KEPT } from './ownedJob';

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
}

/** A finished download: a verified file, or (an image whose folder could not be written) bytes in memory. */
export type Download = (DownloadedFile | { buffer: Buffer; mimeType: string; fileExtension: string }) & { taskId: string; cost?: number };

/**
 * What an image result weighs against the pool's retained-results bound: bytes in memory, and a download file kept
 * for the collector (Cache Off) as well, so the bound keeps its meaning for unstored results; a stored one weighs 0.
 */
export function imageJobResultSize(result: JobResult): number {
	if (result.buffer) return result.buffer.byteLength;
	return result.filePath !== undefined ? (result.byteLength ?? 0) : 0;
}

/**
 * The result as n8n's binary data helpers take it: its bytes, or a stream of its stored content (integrity-checked
 * while read unless fresh) or file. Throws naming the task when it is gone (evicted or removed since the job ended).
 */
export async function resultSource(result: JobResult): Promise<Buffer | Readable> {
	if (result.buffer) return result.buffer;
	if (result.storeKey !== undefined) {
		const stored = await getStore().results.openStream(result.storeKey, { verify: !result.fresh });
		if (stored) return stored.stream;
	}
	if (result.filePath !== undefined && (await stat(result.filePath).then(() => true, () => false))) return createReadStream(result.filePath, { highWaterMark: READ_CHUNK_BYTES });
	const noun = result.mimeType.startsWith('video/') ? 'video' : 'image';
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
	const kept = cacheMode !== 'off' && (await store.results.adoptFile(key, download, { mimeType, fileExtension, taskId }));
	// Stored: the file became the store's content. Else the file stays (a store fault never loses the result).
	return kept ? { ...base, storeKey: key, byteLength: download.byteLength, fresh: true } : { ...base, filePath: download.filePath, byteLength: download.byteLength };
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
	if (result.filePath === undefined) return result;
	const own = `${result.filePath.replace(/\.[^./]+$/, '')}-${randomUUID()}.${result.fileExtension}`;
	try {
		linkSync(result.filePath, own);
	} catch {
		return result; // already gone: resultSource says so, naming the task
	}
	return { ...result, filePath: own };
}

/**
 * The serial node has handed n8n a result left as a file (delivered): the file is removed and forgotten, unless a
 * slot of this process still needs that same file (callers of one flight that could not get a link of their own
 * share it; a twin's slot waits for its collector, and then the download sweep removes it).
 */
export async function removeDeliveredFile(result: JobResult, store: Store = getStore()): Promise<void> {
	const file = result.filePath;
	if (file === undefined || store.inUse.has(file)) return;
	await rm(file, { force: true });
	store.inUse.forgetFile(file); // its name too: a long-lived n8n serves many files
}
