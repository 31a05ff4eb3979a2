/**
 * Keyframes and the start video as sent upstream: a URL stays a URL; a binary property of the input item is read
 * through n8n's helpers, checked (an image by its magic bytes, a clip by its ftyp box) and limited as BFL limits it
 * (images ≤ 20 MB decoded and at least 256×256 pixels, video ≤ 50 MB and ≤ 15 s), then sent as plain base64. URLs are
 * not measured (that would mean downloading them): BFL checks those itself.
 */
import { formatBytes } from '../flux/body';
import { detectImageType } from '../flux/imageType';
import { isMp4 } from '../flux/videoType';
import { InvalidParameterError } from '../parameters/invalidParameter';
import { mp4DurationSeconds } from '../images/mp4Duration';
import { pixelSizeOf, pixelSizeProblem, type PixelLimits } from '../images/pixelSize';
import { MAX_CONTINUATION_SECONDS, MAX_KEYFRAME_BYTES, MAX_START_VIDEO_BYTES, type VideoKeyframe, type VideoMedia } from '../models/flux3Video';
import { sharedReferenceImages } from '../fluxN8n/sharedReferenceImages';
import { readMediaBinary, type KeyframeEntry, type MediaSource, type ReadBinary } from '../parameters/mediaSources';

/** BFL's pixel limits on a keyframe (FLUX_API.md): both sides at least 256 (no maximum documented). */
const KEYFRAME_LIMITS: PixelLimits = { model: 'FLUX 3 Video', minSide: 256 };

function tooLarge(field: string, property: string, size: number, limit: number, what: string): InvalidParameterError {
	return new InvalidParameterError(field, `binary property "${property}" is ${formatBytes(size)}, more than the ${formatBytes(limit)} FLUX accepts for ${what}; use a smaller file or an http(s) URL`);
}

/** One keyframe image: PNG, JPEG or WebP, at most 20 MB, at least 256×256; items sharing the bytes share one encoded copy. */
async function keyframeImage(source: MediaSource, field: string, read: ReadBinary): Promise<VideoMedia> {
	if (source.kind === 'url') return { kind: 'url', url: source.url };
	const { buffer } = await readMediaBinary(source.property, field, read);
	if (buffer.length > MAX_KEYFRAME_BYTES) throw tooLarge(field, source.property, buffer.length, MAX_KEYFRAME_BYTES, 'a keyframe image');
	const type = detectImageType(buffer);
	if (!type) throw new InvalidParameterError(field, `binary property "${source.property}" is not a PNG, JPEG or WebP image`);
	const problem = pixelSizeProblem(pixelSizeOf(buffer), KEYFRAME_LIMITS);
	if (problem) throw new InvalidParameterError(field, `binary property "${source.property}" ${problem}`);
	return sharedReferenceImages().encode(buffer, type.mimeType);
}

/** The keyframes in order, with their timestamps. Errors name `keyframes[i]`. */
export async function resolveKeyframes(entries: readonly KeyframeEntry[], read: ReadBinary): Promise<VideoKeyframe[]> {
	const frames: VideoKeyframe[] = [];
	for (const entry of entries) {
		const image = await keyframeImage(entry.source, `keyframes[${entry.index}]`, read);
		frames.push(entry.seconds === undefined ? { image } : { image, seconds: entry.seconds });
	}
	return frames;
}

/**
 * The start video: an MP4 (by its ftyp box), at most 50 MB, at most 15 s by its movie header. A clip whose header
 * states no duration (none found, or a fragmented MP4's unknown one) is left to BFL. Errors name `startVideo`.
 */
export async function resolveStartVideo(source: MediaSource, read: ReadBinary): Promise<VideoMedia> {
	if (source.kind === 'url') return { kind: 'url', url: source.url };
	const { buffer } = await readMediaBinary(source.property, 'startVideo', read);
	if (buffer.length > MAX_START_VIDEO_BYTES) throw tooLarge('startVideo', source.property, buffer.length, MAX_START_VIDEO_BYTES, 'a start video');
	if (!isMp4(buffer)) throw new InvalidParameterError('startVideo', `binary property "${source.property}" is not an MP4 video (no ftyp box)`);
	const seconds = mp4DurationSeconds(buffer);
	if (seconds !== undefined && seconds > MAX_CONTINUATION_SECONDS) {
		throw new InvalidParameterError('startVideo', `binary property "${source.property}" is ${Number(seconds.toFixed(2))} s long; FLUX 3 Video continues clips of at most ${MAX_CONTINUATION_SECONDS} s`);
	}
	return sharedReferenceImages().encode(buffer, 'video/mp4');
}
