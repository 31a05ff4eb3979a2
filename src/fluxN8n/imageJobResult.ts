/**
 * What one FLUX image job leaves in the pool's registry. A failed job leaves
 * an error instead; Skip Error turns a failure into `skipped_error` with the
 * white placeholder image and the redacted reason.
 */
export interface ImageJobResult {
	outcome: 'success' | 'skipped_error';
	buffer: Buffer;
	mimeType: string;
	fileExtension: string;
	/** The upstream FLUX task id, when a task was created. */
	taskId?: string;
	/** Redacted reason, for `skipped_error`. */
	error?: string;
	errorKind?: string;
}

export function imageJobResultSize(result: ImageJobResult): number {
	return result.buffer.byteLength;
}
