/** The FLUX.2 submit bodies (flux-2-pro, -flex, -max, -klein-4b, -klein-9b) as FLUX_API.md has them: strict, per model. */
import { z } from 'zod';
import { MB, imageField, promptField, webhookFields } from './media';

interface Flux2Model {
	/** input_image … input_image_N */
	inputImages: number;
	promptUpsampling: boolean;
	stepsAndGuidance: boolean;
}

export const FLUX2_MODELS: Readonly<Record<string, Flux2Model>> = {
	'flux-2-pro': { inputImages: 8, promptUpsampling: true, stepsAndGuidance: false },
	'flux-2-flex': { inputImages: 8, promptUpsampling: true, stepsAndGuidance: true },
	'flux-2-max': { inputImages: 8, promptUpsampling: true, stepsAndGuidance: false },
	'flux-2-klein-4b': { inputImages: 4, promptUpsampling: false, stepsAndGuidance: false },
	'flux-2-klein-9b': { inputImages: 4, promptUpsampling: false, stepsAndGuidance: false },
};

/** At most about 4 megapixels in all. */
const MAX_PIXELS = 2048 * 2048;
const side = z.number().int().min(64).multipleOf(16);
const inputImage = imageField({ maxBytes: 20 * MB }).optional();

/** The body schema of one FLUX.2 endpoint (a key of FLUX2_MODELS). */
export function flux2Body(endpoint: string): z.ZodTypeAny {
	const model = FLUX2_MODELS[endpoint];
	const inputs = Array.from({ length: model.inputImages }, (_, i) => [i === 0 ? 'input_image' : `input_image_${i + 1}`, inputImage]);
	return z
		.object({
			prompt: promptField,
			...Object.fromEntries(inputs),
			...(model.promptUpsampling ? { prompt_upsampling: z.boolean().optional() } : {}),
			...(model.stepsAndGuidance ? { steps: z.number().int().min(1).max(50).optional(), guidance: z.number().min(1.5).max(10).optional() } : {}),
			seed: z.number().int().optional(),
			width: side.optional(),
			height: side.optional(),
			safety_tolerance: z.number().int().min(0).max(5).optional(),
			output_format: z.enum(['png', 'jpeg']).optional(),
			...webhookFields,
		})
		.strict()
		.refine((b) => Number(b.width ?? 1024) * Number(b.height ?? 1024) <= MAX_PIXELS, { message: 'width × height must be at most 4 megapixels', path: ['width'] });
}
