/** The request the client sends: typed, already valid (the glue layer validates it once, with zod). */
import type { Resolution } from './options';

/** A reference image as sent upstream: a URL, or a binary sent as plain base64. */
export type ReferenceImage = { kind: 'url'; url: string } | { kind: 'base64'; data: string; mimeType: string };

/** A valid request for one FLUX 3 image (CONTRACTS.md). */
export interface FluxImageRequest {
	prompt: string;
	resolution: Resolution;
	aspectRatio: string;
	grounding: boolean;
	safetyTolerance: number;
	/** At most 10, order kept. */
	images: ReferenceImage[];
}

/** The body of `POST …/flux-3-image` (FLUX_API.md): snake_case, images as URLs or plain base64, in order. */
export function requestBody(req: FluxImageRequest): Record<string, unknown> {
	const body: Record<string, unknown> = { prompt: req.prompt };
	if (req.images.length > 0) body.images = req.images.map((img) => (img.kind === 'url' ? img.url : img.data));
	body.aspect_ratio = req.aspectRatio;
	body.resolution = req.resolution;
	body.grounding = req.grounding;
	body.safety_tolerance = req.safetyTolerance;
	return body;
}

/** {@link requestBody} as the JSON text that goes on the wire. */
export function requestBodyJson(req: FluxImageRequest): string {
	return JSON.stringify(requestBody(req));
}
