/** A FLUX 3 Image request as tests build one: the node's defaults, `extra` values (and `images`) over them. */
import type { FluxImageRequest, ReferenceImage } from '../../src/flux';
import { flux3Image } from '../../src/models';

export function flux3ImageRequest(prompt: string, extra: Record<string, unknown> & { images?: ReferenceImage[] } = {}): FluxImageRequest {
	const { images = [], ...values } = extra;
	return { model: flux3Image, prompt, values: { resolution: '1k', aspectRatio: 'auto', grounding: true, safetyTolerance: 2, ...values }, images };
}
