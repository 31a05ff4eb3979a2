/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/flux knows nothing of n8n: it throws typed FluxError / FluxParameterError, which the node layer turns into NodeApiError / NodeOperationError. */
import { FluxParameterError } from './errors';
import { detectReferenceImageType } from './imageType';
import { MAX_REFERENCE_IMAGES, ReferenceImage, ReferenceImageEntry, classifyReferenceEntry } from './parameters';

/** Default size cap of one binary reference image: 20 MB. */
export const DEFAULT_MAX_REFERENCE_IMAGE_BYTES = 20 * 1024 * 1024;

/** Reads a binary property of the current input item; `undefined` when it does not exist. */
export type GetBinary = (propertyName: string) => Promise<{ buffer: Buffer; mimeType?: string } | undefined>;

export interface ResolveReferenceImagesOptions {
	/** Size cap per binary image in bytes (default 20 MB). */
	maxBytesPerImage?: number;
}

function formatBytes(n: number): string {
	if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MB`;
	if (n >= 1024) return `${(n / 1024).toFixed(1)} KB`;
	return `${n} bytes`;
}

/**
 * Resolves reference-image entries, keeping order: an http(s) URL is kept
 * as a URL; any other entry names a binary property, read via `getBinary` and
 * sent as plain base64 after its magic bytes prove it is a PNG, JPEG, WebP or
 * GIF image. Empty entries are skipped; more than 10 is an error. Every
 * error is a {@link FluxParameterError} whose field names the slot
 * (`referenceImages[i]`, `i` = position in `entries`).
 */
export async function resolveReferenceImages(
	entries: ReadonlyArray<string | ReferenceImageEntry | null | undefined>,
	getBinary: GetBinary,
	opts: ResolveReferenceImagesOptions = {},
): Promise<ReferenceImage[]> {
	const maxBytes = opts.maxBytesPerImage ?? DEFAULT_MAX_REFERENCE_IMAGE_BYTES;
	const normalized: ReferenceImageEntry[] = [];
	entries.forEach((entry, position) => {
		if (entry === null || entry === undefined) return;
		const e = typeof entry === 'string' ? { index: position, value: entry } : entry;
		if (typeof e.value !== 'string') {
			throw new FluxParameterError(`referenceImages[${e.index}]`, 'must be a binary property name or an http(s) URL');
		}
		if (e.value.trim() === '') return;
		normalized.push({ index: e.index, value: e.value.trim() });
	});
	if (normalized.length > MAX_REFERENCE_IMAGES) {
		throw new FluxParameterError(
			'referenceImages',
			`at most ${MAX_REFERENCE_IMAGES} reference images are allowed (got ${normalized.length})`,
		);
	}

	const images: ReferenceImage[] = [];
	for (const { index, value } of normalized) {
		const field = `referenceImages[${index}]`;
		const entry = classifyReferenceEntry(value, field);
		if (entry.kind === 'url') {
			images.push({ kind: 'url', url: entry.url });
			continue;
		}
		let binary: { buffer: Buffer; mimeType?: string } | undefined;
		try {
			binary = await getBinary(entry.property);
		} catch (err) {
			const reason = err instanceof Error ? err.message : String(err);
			throw new FluxParameterError(field, `could not read binary property "${entry.property}": ${reason}`);
		}
		if (!binary || !binary.buffer) {
			throw new FluxParameterError(
				field,
				`binary property "${entry.property}" not found on the input item (or use an http(s) URL)`,
			);
		}
		const buffer = Buffer.isBuffer(binary.buffer) ? binary.buffer : Buffer.from(binary.buffer);
		if (buffer.length === 0) {
			throw new FluxParameterError(field, `binary property "${entry.property}" is empty`);
		}
		if (buffer.length > maxBytes) {
			throw new FluxParameterError(
				field,
				`binary property "${entry.property}" is ${formatBytes(buffer.length)}, more than the ${formatBytes(maxBytes)} limit per reference image`,
			);
		}
		const type = detectReferenceImageType(buffer);
		if (!type) {
			const declared = binary.mimeType ? ` (declared ${binary.mimeType})` : '';
			throw new FluxParameterError(
				field,
				`binary property "${entry.property}"${declared} is not a PNG, JPEG, WebP or GIF image`,
			);
		}
		images.push({ kind: 'base64', data: buffer.toString('base64'), mimeType: type.mimeType });
	}
	return images;
}
