/**
 * What one FLUX video job leaves behind: never the clip's bytes in memory, only where it is — its key in the
 * result store, or (Cache Off, or the store could not keep it) a file in the download folder. A skipped
 * (Skip Error) job has neither: there is no placeholder clip.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { Readable } from 'node:stream';

import { downloadKeptMs, sweepFolder } from '../fluxN8n/imageJobResult';
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

/** The folder downloads stream into: next to the result store (same disk, same 0700 parent). */
export function videoDownloadDir(): string {
	return path.join(getStore().results.rootDir, 'video-downloads');
}

/** Removes download files past their time (left by Cache Off results or a killed process). Never throws. */
export async function sweepVideoDownloads(now = Date.now()): Promise<void> {
	await sweepFolder(videoDownloadDir(), now, downloadKeptMs);
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
