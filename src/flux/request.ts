import type { Resolution } from './options';

/** A reference image as sent upstream: a URL, or a binary sent as plain base64. */
export type ReferenceImage = { kind: 'url'; url: string } | { kind: 'base64'; data: string; mimeType: string };

/**
 * One FLUX 3 image request, already valid (CONTRACTS.md): the n8n glue
 * (src/fluxN8n) validates parameters once, at the boundary; the client does not re-check.
 */
export interface FluxImageRequest {
	prompt: string;
	resolution: Resolution;
	aspectRatio: string;
	grounding: boolean;
	safetyTolerance: number;
	/** At most 10, order kept. */
	images: ReferenceImage[];
}

/** The JSON body of `POST …/flux-3-image` (FLUX_API.md): snake_case, `images` omitted when empty, no seed. */
export function buildRequestBody(req: FluxImageRequest): Record<string, unknown> {
	const body: Record<string, unknown> = { prompt: req.prompt };
	if (req.images.length > 0) {
		body.images = req.images.map((img) => (img.kind === 'url' ? img.url : img.data));
	}
	body.aspect_ratio = req.aspectRatio;
	body.resolution = req.resolution;
	body.grounding = req.grounding;
	body.safety_tolerance = req.safetyTolerance;
	return body;
}
