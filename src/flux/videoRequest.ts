/** A clip request the client sends: already valid (the glue layer validates it once); its model makes the body. */
import { bodyPayload, wireImage, type Media, type ModelWire, type ReferenceImage, type RequestPayload } from './request';

/** One input medium as sent upstream: an http(s) URL or plain base64 (no data-URI prefix). */
export type VideoMedia = ReferenceImage;

/** One keyframe: its image, and its time in seconds when the keyframes are timestamped. */
export interface VideoKeyframe {
	image: VideoMedia;
	seconds?: number;
}

/** A valid request for one clip (FLUX 3 Video's parameters, src/models/flux3Video.ts). Fields outside `mode` are absent. */
export interface FluxVideoRequest {
	model: ModelWire;
	/** `t2v`, `i2v`, `v2v` or `draft_enhance`. */
	mode: string;
	/** Absent in `draft_enhance`. */
	prompt?: string;
	aspectRatio?: string;
	resolution?: string;
	/** `auto` or whole seconds. */
	duration?: 'auto' | number;
	generateAudio?: boolean;
	safetyTolerance?: number;
	/** A draft: a fast preview whose result carries a draft cache. */
	draft?: boolean;
	/** Options → Model Version (`latest` is not sent). */
	modelVersion?: string;
	/** i2v only: 1–10, in order; all timestamped or none. */
	keyframes?: VideoKeyframe[];
	/** v2v only. */
	startVideo?: VideoMedia;
	/** draft_enhance only: the draft's cache. */
	draftCache?: VideoMedia;
}

/** The body of a clip request: the model's own, media through `media` (default: as they go on the wire). */
export function videoRequestBody(req: FluxVideoRequest, media: Media = wireImage): Record<string, unknown> {
	return req.model.body({ ...req }, media);
}

/** {@link videoRequestBody} as wire parts ({@link bodyPayload}): a 50 MB start video is held once, not twice. */
export function videoRequestPayload(req: FluxVideoRequest): RequestPayload {
	return bodyPayload((media) => videoRequestBody(req, media));
}
