/**
 * What one FLUX image job leaves in the pool's registry: never the image's bytes when they are on disk, only
 * where they are — its key in the result store, or (Cache Off, or the store could not keep it) a file in the
 * download folder. A failed job leaves an error instead; Skip Error turns a failure into `skipped_error` with
 * the white placeholder image (bytes) and the redacted reason. Bytes are held only by a skipped job and by an
 * image whose download folder could not be written (then it was downloaded into memory).
 */
import { createReadStream } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { Readable } from 'node:stream';

import { settings } from '../config';
import { getStore, type Store } from '../store';
import { READ_CHUNK_BYTES } from '../store/resultStore';
import { ensureStoreFolder } from '../store/storeFolder';

export interface ImageJobResult {
	outcome: 'success' | 'skipped_error';
	/** The image in memory (a placeholder, or a download that could not go to disk). */
	buffer?: Buffer;
	/** The image's key in the result store, when it is stored there. */
	storeKey?: string;
	/** The image's file, when it is not stored (Cache Off, or a store fault); removed by the download sweep. */
	filePath?: string;
	/** Length of the image in bytes. */
	byteLength?: number;
	/**
	 * True when this process hashed the stored bytes moments ago (stored them as they arrived, or read a stored
	 * result through its integrity check to serve it): the collector reads them back without hashing again.
	 */
	fresh?: boolean;
	mimeType: string;
	fileExtension: string;
	/** The upstream FLUX task id, when a task was created. */
	taskId?: string;
	/** True when the image came from the result store (no new paid job). */
	cached?: boolean;
	/** What the job cost as the API reported it (credits); null: it said nothing. A cached result costs nothing (reported as 0). */
	cost?: number | null;
	/** Redacted reason, for `skipped_error`. */
	error?: string;
	errorKind?: string;
}

/**
 * What a result weighs against the pool's retained-results bound: bytes in memory, and a download file kept for
 * the collector (Cache Off) as well, so the bound keeps its meaning for unstored results; a stored one weighs 0.
 */
export function imageJobResultSize(result: ImageJobResult): number {
	if (result.buffer) return result.buffer.byteLength;
	return result.filePath !== undefined ? (result.byteLength ?? 0) : 0;
}

const goneMessage = (result: ImageJobResult) =>
	`The image of task ${result.taskId ?? '(unknown)'} is no longer in the result store (removed or evicted since the job ended); run the workflow again`;

/**
 * The image of a result as n8n's binary data helpers take it: its bytes, or a stream of its stored content or
 * file. Throws (naming the slot's task) when the image is gone (evicted or removed since the job ended).
 */
export async function imageSource(result: ImageJobResult): Promise<Buffer | Readable> {
	if (result.buffer) return result.buffer;
	if (result.storeKey !== undefined) {
		const stored = await getStore().results.openStream(result.storeKey, { verify: !result.fresh });
		if (stored) return stored.stream;
	}
	if (result.filePath !== undefined && (await stat(result.filePath).then(() => true, () => false))) return createReadStream(result.filePath, { highWaterMark: READ_CHUNK_BYTES });
	throw new Error(goneMessage(result));
}

const HOUR_MS = 60 * 60 * 1000;
/** A `.part` file is a download a killed process left behind once it is older than the longest job (24 h). */
const PART_KEPT_MS = 25 * HOUR_MS;

/**
 * How long a download file (image or clip) is kept: a finished one (Cache Off, or a store fault) as long as the
 * pool may hand its result to a collector plus an hour; a `.part` file {@link PART_KEPT_MS}.
 */
export function downloadKeptMs(name: string): number {
	return name.endsWith('.part') ? PART_KEPT_MS : settings().pool.resultTtlMs + HOUR_MS;
}

/** The folder image downloads stream into: next to the result store (same disk, so storing one is a link, not a copy). */
export function imageDownloadDir(store: Store = getStore()): string {
	return path.join(store.results.rootDir, 'image-downloads');
}

/** Creates the download folder (0700); resolves false when it cannot be (then images are downloaded into memory). */
export async function readyImageDownloadDir(store: Store = getStore()): Promise<string | undefined> {
	const dir = imageDownloadDir(store);
	try {
		await ensureStoreFolder(dir);
		return dir;
	} catch {
		return undefined;
	}
}

/**
 * Removes download files a pool can no longer hand out: a finished image (Cache Off, or a store fault) after the
 * pool's result TTL plus an hour, a `.part` file after 25 h; and what a killed process left in the result store's
 * tmp folder (a file being adopted or written) after 25 h. Never throws.
 */
export async function sweepImageDownloads(store: Store = getStore(), now = Date.now()): Promise<void> {
	await sweepFolder(imageDownloadDir(store), now, downloadKeptMs);
	await sweepFolder(path.join(store.results.cacheDir, 'tmp'), now, () => PART_KEPT_MS);
}

/** How often a process sweeps (each job asks): a sweep stats every file, so a burst of jobs sweeps once. */
export const SWEEP_EVERY_MS = 60_000;
const lastSweeps = new Map<string, number>();

/** {@link sweepImageDownloads}, unless this process swept the folder less than {@link SWEEP_EVERY_MS} ago. */
export async function sweepImageDownloadsNowAndThen(store: Store = getStore(), now = Date.now()): Promise<void> {
	const dir = imageDownloadDir(store);
	if (now - (lastSweeps.get(dir) ?? -Infinity) < SWEEP_EVERY_MS) return;
	lastSweeps.set(dir, now);
	await sweepImageDownloads(store, now);
}

/** Removes the files of `dir` last written more than `keptMsOf(name)` before `now`. Never throws. */
export async function sweepFolder(dir: string, now: number, keptMsOf: (name: string) => number): Promise<void> {
	try {
		for (const name of await readdir(dir)) {
			const file = path.join(dir, name);
			const info = await stat(file).catch(() => undefined);
			if (info?.isFile() && now - info.mtimeMs > keptMsOf(name)) await rm(file, { force: true });
		}
	} catch {
		// no folder yet, or unreadable: nothing to sweep
	}
}
