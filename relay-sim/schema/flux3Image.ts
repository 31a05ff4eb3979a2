/** The `flux-3-image` submit body as BFL's FLUX 3 Image reference has it (FLUX_API.md): strict, seed / width / height / output_format refused. */
import { z } from 'zod';
import { MB, imageField, promptField, webhookFields } from './media';

export const FLUX3_IMAGE_ASPECT_RATIOS = ['auto', '21:9', '2:1', '16:9', '3:2', '7:5', '4:3', '5:4', '1:1', '4:5', '3:4', '5:7', '2:3', '9:16', '1:2', '9:21'] as const;
export const FLUX3_IMAGE_RESOLUTIONS = ['768sq', '1k', '1.5k', '2k', '4k'] as const;
export type Flux3ImageResolution = (typeof FLUX3_IMAGE_RESOLUTIONS)[number];

/** A reference image: at least 256×256, at most 16 megapixels (4096 × 4096), base64 at most 20 MB. */
export const REFERENCE_IMAGE = { maxBytes: 20 * MB, minSide: 256, maxPixels: 4096 * 4096 };

export const flux3ImageBody = z
	.object({
		prompt: promptField,
		images: z.array(imageField(REFERENCE_IMAGE)).min(1).max(10).optional(),
		aspect_ratio: z.enum(FLUX3_IMAGE_ASPECT_RATIOS).optional(),
		resolution: z.enum(FLUX3_IMAGE_RESOLUTIONS).optional(),
		grounding: z.boolean().optional(),
		safety_tolerance: z.number().int().min(0).max(4).optional(),
		version: z.string().min(1).optional(),
		...webhookFields,
	})
	.strict();

export type Flux3ImageBody = z.infer<typeof flux3ImageBody>;
