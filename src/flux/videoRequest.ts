/** The FLUX 3 Video request the client sends: typed, already valid (the glue layer validates it once, with zod). */
import { base64BytesOf, type ReferenceImage, type RequestPayload } from './request';
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
}

const wire = (media: VideoMedia): string => (media.kind === 'url' ? media.url : media.data);

/** The body of `POST …/flux-3-video` (FLUX_API.md): snake_case, only the fields of the request's mode. */
export function videoRequestBody(req: FluxVideoRequest, media: (m: VideoMedia) => string = wire): Record<string, unknown> {
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
	return body;
}

/**
 * {@link videoRequestBody} as wire parts: each base64 medium is its own part, never copied into one large JSON
 * string (base64 needs no JSON escaping), so a 50 MB start video is held once, not twice.
 */
export function videoRequestPayload(req: FluxVideoRequest): RequestPayload {
	const marker = `\u0000media-${Math.random().toString(36).slice(2)}-`;
	const inline: Buffer[] = [];
	const json = JSON.stringify(
		videoRequestBody(req, (m) => {
			if (m.kind === 'url') return m.url;
			inline.push(base64BytesOf(m));
			return `${marker}${inline.length - 1}`;
		}),
	);
	const parts: Buffer[] = [];
	let rest = json;
	inline.forEach((bytes, i) => {
		const token = JSON.stringify(`${marker}${i}`).slice(1, -1);
		const at = rest.indexOf(token);
		parts.push(Buffer.from(rest.slice(0, at), 'utf8'), bytes);
		rest = rest.slice(at + token.length);
	});
	parts.push(Buffer.from(rest, 'utf8'));
	return { parts, length: parts.reduce((sum, part) => sum + part.length, 0) };
}
