/** The FLUX 3 Video request the client sends: typed, already valid (the glue layer validates it once, with zod). */
import { bodyPayload, type ReferenceImage, type RequestPayload } from './request';
import type { VideoAspectRatio, VideoMode, VideoResolution } from './videoOptions';

/** One input medium as sent upstream: an http(s) URL or plain base64 (no data-URI prefix). */
export type VideoMedia = ReferenceImage;

/** One keyframe: its image, and its time in seconds when the keyframes are timestamped. */
export interface VideoKeyframe {
	image: VideoMedia;
	seconds?: number;
}

/** A valid request for one FLUX 3 clip. Fields outside `mode` are absent. */
export interface FluxVideoRequest {
	mode: VideoMode;
	prompt: string;
	aspectRatio: VideoAspectRatio;
	resolution: VideoResolution;
	/** `auto` or whole seconds 5–20. */
	duration: 'auto' | number;
	generateAudio: boolean;
	/** i2v only: 1–10, in order; all timestamped or none. */
	keyframes?: VideoKeyframe[];
	/** v2v only. */
	startVideo?: VideoMedia;
	/** A fast, cheaper preview whose result also carries a draft cache (t2v, i2v, v2v). */
	draft?: boolean;
	/** draft_enhance only: the draft cache of an earlier draft. */
	draftCache?: VideoMedia;
}

const wire = (media: VideoMedia): string => (media.kind === 'url' ? media.url : media.data);

/** The body of `POST …/flux-3-video` (FLUX_API.md): snake_case, only the fields of the request's mode. */
export function videoRequestBody(req: FluxVideoRequest, media: (m: VideoMedia) => string = wire): Record<string, unknown> {
	if (req.mode === 'draft_enhance') return { mode: req.mode, ...(req.draftCache ? { draft_cache: media(req.draftCache) } : {}) };
	const body: Record<string, unknown> = {
		mode: req.mode,
		prompt: req.prompt,
		aspect_ratio: req.aspectRatio,
		resolution: req.resolution,
		duration: req.duration,
		generate_audio: req.generateAudio,
	};
	if (req.mode === 'i2v' && req.keyframes) {
		const timed = req.keyframes.every((k) => k.seconds !== undefined);
		body.keyframes = req.keyframes.map((k) => (timed ? [k.seconds, media(k.image)] : media(k.image)));
	}
	if (req.mode === 'v2v' && req.startVideo) body.start_video = media(req.startVideo);
	if (req.draft === true) body.draft = true;
	return body;
}

/** {@link videoRequestBody} as wire parts ({@link bodyPayload}): a 50 MB start video is held once, not twice. */
export function videoRequestPayload(req: FluxVideoRequest): RequestPayload {
	return bodyPayload((media) => videoRequestBody(req, media));
}
