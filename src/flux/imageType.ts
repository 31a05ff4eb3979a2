/** Image type detection by magic bytes (never by URL or Content-Type). */

export type ResultMimeType = 'image/png' | 'image/jpeg' | 'image/webp';
export type ResultExtension = 'png' | 'jpg' | 'webp';

export interface DetectedImageType<M extends string = ResultMimeType, E extends string = ResultExtension> {
	mimeType: M;
	fileExtension: E;
}

export type ReferenceMimeType = ResultMimeType | 'image/gif';
export type ReferenceExtension = ResultExtension | 'gif';

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(buf: Uint8Array, bytes: readonly number[], offset = 0): boolean {
	if (buf.length < offset + bytes.length) return false;
	for (let i = 0; i < bytes.length; i++) if (buf[offset + i] !== bytes[i]) return false;
	return true;
}

function ascii(s: string): number[] {
	return [...s].map((c) => c.charCodeAt(0));
}

/** Detects PNG, JPEG or WebP (the formats FLUX returns) from the first bytes; `undefined` otherwise. */
export function detectImageType(buf: Uint8Array): DetectedImageType | undefined {
	if (startsWith(buf, PNG)) return { mimeType: 'image/png', fileExtension: 'png' };
	if (startsWith(buf, [0xff, 0xd8, 0xff])) return { mimeType: 'image/jpeg', fileExtension: 'jpg' };
	if (startsWith(buf, ascii('RIFF')) && startsWith(buf, ascii('WEBP'), 8)) {
		return { mimeType: 'image/webp', fileExtension: 'webp' };
	}
	return undefined;
}

/** Like {@link detectImageType}, and also GIF (accepted as a reference image). */
export function detectReferenceImageType(
	buf: Uint8Array,
): DetectedImageType<ReferenceMimeType, ReferenceExtension> | undefined {
	const known = detectImageType(buf);
	if (known) return known;
	if (startsWith(buf, ascii('GIF87a')) || startsWith(buf, ascii('GIF89a'))) {
		return { mimeType: 'image/gif', fileExtension: 'gif' };
	}
	return undefined;
}
