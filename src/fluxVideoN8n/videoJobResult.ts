/**
 * What one FLUX video job leaves behind: never the clip's bytes in memory, only where it is — its key in the
 * result store, or (Cache Off, or the store could not keep it) a file in the download folder. A skipped
 * (Skip Error) job has neither: there is no placeholder clip.
 */
import { createReadStream } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { Readable } from 'node:stream';

import { MAX_TIMEOUT_MINUTES } from '../parameters/fieldSchemas';
import { settings } from '../config';
import { getStore } from '../store';

export interface VideoJobResult {
	outcome: 'success' | 'skipped_error';
	storeKey?: string;
	filePath?: string;
	byteLength?: number;
	taskId?: string;
	cached?: boolean;
	/** What the clip cost as the API reported it (credits; FLUX 3 Video: on the finished poll); null: it said nothing. */
	cost?: number | null;
	error?: string;
	errorKind?: string;
}

export const VIDEO_MIME_TYPE = 'video/mp4';

/** Bytes a video result keeps in memory: none (the clip is on disk). */
export const videoJobResultSize = (): number => 0;

const HOUR_MS = 60 * 60 * 1000;

/**
 * How long a download file is kept: a finished clip (Cache Off, or the store could not keep it) as long as the pool
 * may hand its result to a collector (COMFLY_RESULT_TTL_SECONDS) plus an hour; a `.part` file outlives the
 * longest job (24 h) plus an hour (what is left is a killed process's partial download).
 */
function keptForMs(name: string): number {
	if (name.endsWith('.part')) return MAX_TIMEOUT_MINUTES * 60_000 + HOUR_MS;
	return settings().pool.resultTtlMs + HOUR_MS;
}

/** The folder downloads stream into: next to the result store (same disk, same 0700 parent). */
export function videoDownloadDir(): string {
	return path.join(getStore().results.rootDir, 'video-downloads');
}

/** Removes download files past {@link keptForMs} (left by Cache Off results or a killed process). Never throws. */
export async function sweepVideoDownloads(now = Date.now()): Promise<void> {
	const dir = videoDownloadDir();
	try {
		for (const name of await readdir(dir)) {
			const file = path.join(dir, name);
			const info = await stat(file).catch(() => undefined);
			if (info && now - info.mtimeMs > keptForMs(name)) await rm(file, { force: true });
		}
	} catch {
		// no folder yet, or unreadable: nothing to sweep
	}
}

/**
 * The clip of a successful result as a stream (from the store, integrity-checked while read; or from its file).
 * Throws naming the task when it is gone (evicted or removed since the job ended).
 */
export async function openVideo(result: VideoJobResult): Promise<Readable> {
	if (result.storeKey !== undefined) {
		const stored = await getStore().results.openStream(result.storeKey);
		if (stored) return stored.stream;
	}
	if (result.filePath !== undefined) {
		const exists = await stat(result.filePath).then(() => true, () => false);
		if (exists) return createReadStream(result.filePath);
	}
	throw new Error(`The video of task ${result.taskId ?? '(unknown)'} is no longer stored (removed or evicted since the job ended); run the workflow again`);
}
