import { getStore } from '../store';

/**
 * What one FLUX image job leaves in the pool's registry. A failed job leaves
 * an error instead; Skip Error turns a failure into `skipped_error` with the
 * white placeholder image and the redacted reason. Once the image is in the
 * result store, the pool keeps only the reference (`storeKey`), not the bytes.
 */
export interface ImageJobResult {
	outcome: 'success' | 'skipped_error';
	/** The image; absent when the pool keeps only the reference to the stored image. */
	buffer?: Buffer;
	/** The image's key in the result store, when it is stored there. */
	storeKey?: string;
	mimeType: string;
	fileExtension: string;
	/** The upstream FLUX task id, when a task was created. */
	taskId?: string;
	/** True when the image came from the result store (no new paid job). */
	cached?: boolean;
	/** Redacted reason, for `skipped_error`. */
	error?: string;
	errorKind?: string;
}

/** A result that holds its bytes (what a job run returns). */
export type ImageWithBytes = ImageJobResult & { buffer: Buffer };

export function imageJobResultSize(result: ImageJobResult): number {
	return result.buffer?.byteLength ?? 0;
}

/** What the pool keeps: a stored image only as its reference (the bytes are read back when collected). */
export function poolResult(result: ImageWithBytes): ImageJobResult {
	if (result.storeKey === undefined) return result;
	const { buffer: _bytes, ...reference } = result;
	return reference;
}

/**
 * The bytes of a result: its own, or read back from the result store. Throws (naming the slot's task)
 * when the stored image is gone (evicted or removed since the job ended).
 */
export async function imageBytes(result: ImageJobResult): Promise<Buffer> {
	if (result.buffer) return result.buffer;
	const stored = result.storeKey === undefined ? undefined : await getStore().results.get(result.storeKey);
	if (stored) return stored.bytes;
	throw new Error(
		`The image of task ${result.taskId ?? '(unknown)'} is no longer in the result store (removed or evicted since the job ended); run the workflow again`,
	);
}
