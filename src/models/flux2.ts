/**
 * The FLUX.2 image models (`flux-2-pro`, `-flex`, `-max`, `-klein-4b`, `-klein-9b`; FLUX_API.md "FLUX.2 image
 * models"): Width and Height (multiples of 16, at least 64, at most about 4 MP in all; 0 leaves the size to the API),
 * Output Format, Safety Tolerance 0–5, Prompt Upsampling (pro, flex, max), Steps and Guidance (flex). Reference
 * images go as `input_image`, `input_image_2`, … (eight; four for klein); the Seed is sent. List prices per megapixel.
 */
import type { INodeProperties } from 'n8n-workflow';
import { z } from 'zod';

import { choice, integerRange, numberLike } from '../parameters/fieldSchemas';
import { InvalidParameterError } from '../parameters/invalidParameter';
import { describeImageModel, imagePrompt, referenceImages } from './imageModel';
import type { Parameter, Values } from './parameter';
import { flag, safetyTolerance, seedSent } from './sharedParameters';

/** The most pixels of a FLUX.2 image (about 4 megapixels: 2048 × 2048). */
export const FLUX2_MAX_PIXELS = 2048 * 2048;
const MIN_SIDE = 64;

/** A number from `min` to `max` (decimal text too); blank is absent (not sent). */
const numberRange = (min: number, max: number) => {
	const message = `must be a number from ${min} to ${max}`;
	return z.preprocess(numberLike, z.number({ invalid_type_error: message }).finite(message).min(min, message).max(max, message).optional());
};

/** Width or Height: 0 or blank (not sent), else a multiple of 16 of at least 64. */
const sideSchema = z.preprocess(
	numberLike,
	z
		.number({ invalid_type_error: 'must be a number' })
		.finite('must be a number')
		.refine((n) => n === 0 || (Number.isInteger(n) && n >= MIN_SIDE && n % 16 === 0), `must be 0 or a multiple of 16 of at least ${MIN_SIDE}`)
		.optional()
		.transform((n) => (n === 0 ? undefined : n)),
);

const number = (name: string, displayName: string, schema: z.ZodTypeAny, typeOptions: INodeProperties['typeOptions'], fallback: number, description: string): Parameter => ({
	name,
	property: { displayName, name, type: 'number', default: fallback, typeOptions, description },
	schema,
	wire: name,
});

const side = (name: 'width' | 'height', displayName: string) =>
	number(name, displayName, sideSchema, { minValue: 0, maxValue: 4096, numberPrecision: 0 }, 1024, `The image's ${name} in pixels: a multiple of 16, at least ${MIN_SIDE}; Width × Height at most about 4 megapixels (2048 × 2048). 0 leaves it to the API (the first reference image's size).`);

const SIZE_AND_FORMAT: Parameter[] = [
	side('width', 'Width'),
	side('height', 'Height'),
	{
		name: 'outputFormat',
		property: {
			displayName: 'Output Format',
			name: 'outputFormat',
			type: 'options',
			default: 'png',
			options: [
				{ name: 'PNG', value: 'png', description: 'Lossless' },
				{ name: 'JPEG', value: 'jpeg', description: 'Smaller files' },
			],
			description: 'The file type of the image (the result’s MIME type and extension follow its bytes)',
		},
		schema: choice(['png', 'jpeg'], 'png'),
		wire: 'output_format',
	},
];

const FLEX: Parameter[] = [
	number('steps', 'Steps', integerRange(1, 50), { minValue: 1, maxValue: 50, numberPrecision: 0 }, 50, 'Denoising steps, a whole number from 1 to 50: more is finer and slower'),
	number('guidance', 'Guidance', numberRange(1.5, 10), { minValue: 1.5, maxValue: 10, numberPrecision: 1 }, 4.5, 'How closely the image follows the prompt, from 1.5 to 10'),
];

const promptUpsampling = flag('promptUpsampling', 'Prompt Upsampling', 'prompt_upsampling', 'Whether BFL rewrites the prompt with more detail before generating');

/** Width × Height at most about 4 megapixels. */
function checkSize(values: Values): void {
	const { width, height } = values as { width?: number; height?: number };
	if (width !== undefined && height !== undefined && width * height > FLUX2_MAX_PIXELS) {
		throw new InvalidParameterError('height', `Width × Height must be at most ${FLUX2_MAX_PIXELS} pixels (about 4 megapixels; got ${width} × ${height})`);
	}
}

/**
 * BFL's list price in credits (docs.bfl.ai/quick_start/pricing; per megapixel as in black-forest-labs/skills): the
 * first megapixel, and each further one (output beyond the first, each input image).
 */
const perMegapixel = (first: number, further: number) => (body: Readonly<Record<string, unknown>>) => {
	const width = typeof body.width === 'number' ? body.width : 1024;
	const height = typeof body.height === 'number' ? body.height : 1024;
	const outputMp = Math.max(1, Math.ceil((width * height) / 1024 ** 2)); // 1024 × 1024 is "1 MP" in BFL's table
	const inputs = Object.keys(body).filter((name) => /^input_image(_\d+)?$/.test(name) && Boolean(body[name])).length;
	return Math.round((first + further * (outputMp - 1 + inputs)) * 100) / 100;
};

function flux2(id: string, name: string, price: [number, number], own: { maxReferenceImages: number; tuning?: Parameter[]; upsampling?: boolean }) {
	return describeImageModel({
		id,
		name,
		maxReferenceImages: own.maxReferenceImages,
		parameters: [
			imagePrompt,
			...SIZE_AND_FORMAT,
			...(own.tuning ?? []),
			seedSent,
			safetyTolerance(5, ' (FLUX.2)'),
			...(own.upsampling ? [promptUpsampling] : []),
			referenceImages(own.maxReferenceImages, (images, media) => Object.fromEntries(images.map((image, i) => [i === 0 ? 'input_image' : `input_image_${i + 1}`, media(image)])), name),
		],
		check: checkSize,
		listPrice: perMegapixel(...price),
	});
}

export const flux2Pro = flux2('flux-2-pro', 'FLUX.2 [pro]', [3, 1.5], { maxReferenceImages: 8, upsampling: true });
export const flux2Flex = flux2('flux-2-flex', 'FLUX.2 [flex]', [5, 5], { maxReferenceImages: 8, tuning: FLEX, upsampling: true });
export const flux2Max = flux2('flux-2-max', 'FLUX.2 [max]', [7, 3], { maxReferenceImages: 8, upsampling: true });
export const flux2Klein4b = flux2('flux-2-klein-4b', 'FLUX.2 [klein 4B]', [1.4, 0.1], { maxReferenceImages: 4 });
export const flux2Klein9b = flux2('flux-2-klein-9b', 'FLUX.2 [klein 9B]', [1.5, 0.2], { maxReferenceImages: 4 });
