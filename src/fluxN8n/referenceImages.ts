import { formatBytes } from '../flux/body';
import { detectReferenceImageType } from '../flux/imageType';
import type { ReferenceImage } from '../flux/request';
import { InvalidParameterError } from '../parameters/invalidParameter';
import { readMediaBinary, type MediaEntry, type ReadBinary } from '../parameters/mediaSources';
import { pixelSizeOf, pixelSizeOfBase64, pixelSizeProblem, type PixelLimits, type PixelSize } from '../images/pixelSize';
import { sharedReferenceImages, type EncodedReferenceImage } from './sharedReferenceImages';

/** Default size cap of one binary reference image: 20 MB. */
export const DEFAULT_MAX_REFERENCE_IMAGE_BYTES = 20 * 1024 * 1024;

/**
 * BFL's limits on a FLUX 3 Image reference (FLUX_API.md): both sides at least 256, at most 16 megapixels, taken as
 * 4096×4096 = 16,777,216 pixels so a 4k output can be fed back, and at most 20 MB of base64. FLUX.2 documents no
 * pixel limits: its references are not measured. URLs are never measured (that would mean downloading them): BFL
 * checks those itself.
 */
const FLUX3_IMAGE_REFERENCE: PixelLimits & { maxBase64Bytes: number } = { model: 'FLUX 3 Image', minSide: 256, maxPixels: 4096 * 4096, maxBase64Bytes: 20 * 1024 * 1024 };

/** The limits a model puts on a binary reference's size, or undefined where it documents none. */
function referenceLimits(model: string | undefined): typeof FLUX3_IMAGE_REFERENCE | undefined {
	return model === undefined || model === 'flux-3-image' ? FLUX3_IMAGE_REFERENCE : undefined;
}

export interface ResolveReferenceImagesOptions {
	/** Size cap per binary image in bytes (default 20 MB). */
	maxBytesPerImage?: number;
	/** The image model (its id in src/models) the references are sent to; absent: FLUX 3 Image. */
	model?: string;
	/** Binaries already resolved in this node run: an item sharing one is not read, checked and hashed again. */
	known?: KnownBinaries;
}

/**
 * The binaries one node run has already resolved, by the identity of what n8n stores (a binary data id, or
 * the in-memory base64 text): items that hand over the same stored binary get its encoded copy without
 * n8n decoding it again. Only successes are kept (weakly: the copy lives as long as a job holds it), so
 * a bad binary fails every item that uses it with that item's own error.
 */
export interface KnownBinaries {
	/** The identity of the binary `property` of the current item, or undefined (then it is read). */
	identify(property: string): string | undefined;
	copies: Map<string, WeakRef<EncodedReferenceImage>>;
}

/** Refuses a binary reference outside the model's limits (`size` from its header, `base64Bytes` its base64's length). */
function checkLimits(field: string, property: string, size: PixelSize | undefined, base64Bytes: number, limits: typeof FLUX3_IMAGE_REFERENCE | undefined): void {
	if (!limits) return;
	if (base64Bytes > limits.maxBase64Bytes) {
		throw new InvalidParameterError(field, `binary property "${property}" is ${formatBytes(base64Bytes)} as base64; ${limits.model} takes at most ${formatBytes(limits.maxBase64Bytes)} of base64 per reference image`);
	}
	const problem = pixelSizeProblem(size, limits);
	if (problem) throw new InvalidParameterError(field, `binary property "${property}" ${problem}`);
}

/** One binary reference image: the copy this run already made of the same stored binary (measured again: the model may differ), else readAndEncode. */
async function resolveBinary(property: string, field: string, getBinary: ReadBinary, maxBytes: number, opts: ResolveReferenceImagesOptions): Promise<ReferenceImage> {
	const { known } = opts;
	const limits = referenceLimits(opts.model);
	const identity = known?.identify(property);
	const copy = identity === undefined ? undefined : known?.copies.get(identity)?.deref();
	if (copy) {
		checkLimits(field, property, limits && pixelSizeOfBase64(copy.ascii), copy.ascii.length, limits);
		return copy;
	}
	const encoded = await readAndEncode(property, field, getBinary, maxBytes, limits);
	if (identity !== undefined) known?.copies.set(identity, new WeakRef(encoded));
	return encoded;
}

/** Reads, checks (bytes, magic bytes, the model's limits) and encodes one binary reference image; the encoded copy is shared. */
async function readAndEncode(property: string, field: string, getBinary: ReadBinary, maxBytes: number, limits: typeof FLUX3_IMAGE_REFERENCE | undefined): Promise<EncodedReferenceImage> {
	const binary = await readMediaBinary(property, field, getBinary);
	const buffer = binary.buffer;
	if (buffer.length > maxBytes) {
		throw new InvalidParameterError(
			field,
			`binary property "${property}" is ${formatBytes(buffer.length)}, more than the ${formatBytes(maxBytes)} limit per reference image`,
		);
	}
	const type = detectReferenceImageType(buffer);
	if (!type) {
		const declared = binary.mimeType ? ` (declared ${binary.mimeType})` : '';
		throw new InvalidParameterError(field, `binary property "${property}"${declared} is not a PNG, JPEG, WebP or GIF image`);
	}
	checkLimits(field, property, limits && pixelSizeOf(buffer), 4 * Math.ceil(buffer.length / 3), limits);
	return sharedReferenceImages().encode(buffer, type.mimeType);
}

/**
 * Resolves validated reference entries (see parseFluxParameters), keeping order:
 * a URL stays a URL; a binary property is read via `getBinary` and sent as plain
 * base64 after its magic bytes prove it is a PNG, JPEG, WebP or GIF image and its
 * header that its size is within the model's limits (FLUX 3 Image's). Items
 * sharing the same bytes share one encoded copy. Errors are InvalidParameterError
 * naming the slot (`referenceImages[i]`).
 */
export async function resolveReferenceImages(
	entries: readonly MediaEntry[],
	getBinary: ReadBinary,
	opts: ResolveReferenceImagesOptions = {},
): Promise<ReferenceImage[]> {
	const maxBytes = opts.maxBytesPerImage ?? DEFAULT_MAX_REFERENCE_IMAGE_BYTES;
	const images: ReferenceImage[] = [];
	for (const entry of entries) {
		if (entry.kind === 'url') images.push({ kind: 'url', url: entry.url });
		else images.push(await resolveBinary(entry.property, `referenceImages[${entry.index}]`, getBinary, maxBytes, opts));
	}
	return images;
}
