/**
 * The FLUX.2 image models (`flux-2-pro`, `-flex`, `-max`, `-klein-4b`, `-klein-9b`; FLUX_API.md "FLUX.2 image
 * models", checked against BFL's API reference): Width and Height (multiples of 16, at least 64, at most 4 MP
 * in all; 0 leaves the size to the API), Output Format, and for flex Steps and Guidance. Reference images go as
 * `input_image`, `input_image_2`, … (eight; four for klein); the Seed is sent.
 */
import type { INodeProperties } from 'n8n-workflow';

import { wireImage, type FluxImageRequest } from '../flux/request';
import { DECIMAL } from '../parameters/fieldSchemas';
import { describeValue, InvalidParameterError } from '../parameters/invalidParameter';
import type { ImageModelDescriptor, ModelFieldValues } from './modelDescriptor';

/** The most pixels of a FLUX.2 image (about 4 megapixels: 2048 × 2048). */
export const FLUX2_MAX_PIXELS = 2048 * 2048;
export const FLUX2_MIN_SIDE = 64;
export const FLUX2_OUTPUT_FORMATS = ['png', 'jpeg'] as const;

const side = (name: 'width' | 'height', displayName: string): INodeProperties => ({
	displayName,
	name,
	type: 'number',
	default: 1024,
	typeOptions: { minValue: 0, maxValue: 4096, numberPrecision: 0 },
	description: `The image's ${name} in pixels: a multiple of 16, at least ${FLUX2_MIN_SIDE}; Width × Height at most about 4 megapixels (2048 × 2048). 0 leaves it to the API (the first reference image's size).`,
});

const SHARED: INodeProperties[] = [
	side('width', 'Width'),
	side('height', 'Height'),
	{
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
];

const FLEX: INodeProperties[] = [
	{
		displayName: 'Steps',
		name: 'steps',
		type: 'number',
		default: 50,
		typeOptions: { minValue: 1, maxValue: 50, numberPrecision: 0 },
		description: 'Denoising steps, a whole number from 1 to 50: more is finer and slower',
	},
	{
		displayName: 'Guidance',
		name: 'guidance',
		type: 'number',
		default: 4.5,
		typeOptions: { minValue: 1.5, maxValue: 10, numberPrecision: 1 },
		description: 'How closely the image follows the prompt, from 1.5 to 10',
	},
];

/** A number as n8n or an expression hands it over (decimal digits as text too, not "0x400"); undefined when blank. */
function numberOf(field: string, value: unknown): number | undefined {
	if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return undefined;
	const n = typeof value === 'string' ? (DECIMAL.test(value) ? Number(value) : NaN) : value;
	if (typeof n !== 'number' || !Number.isFinite(n)) throw new InvalidParameterError(field, `must be a number (got ${describeValue(value)})`);
	return n;
}

function inRange(field: string, value: unknown, min: number, max: number, integer: boolean): number | undefined {
	const n = numberOf(field, value);
	if (n === undefined) return undefined;
	if ((integer && !Number.isInteger(n)) || n < min || n > max) {
		throw new InvalidParameterError(field, `must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max} (got ${describeValue(value)})`);
	}
	return n;
}

/** Width or Height: 0 or blank (not sent), else a multiple of 16 of at least 64. */
function sideOf(field: 'width' | 'height', value: unknown): number | undefined {
	const n = numberOf(field, value);
	if (n === undefined || n === 0) return undefined;
	if (!Number.isInteger(n) || n < FLUX2_MIN_SIDE || n % 16 !== 0) {
		throw new InvalidParameterError(field, `must be 0 or a multiple of 16 of at least ${FLUX2_MIN_SIDE} (got ${describeValue(value)})`);
	}
	return n;
}

function sizeFields(values: ModelFieldValues): Record<string, unknown> {
	const width = sideOf('width', values.width);
	const height = sideOf('height', values.height);
	if (width !== undefined && height !== undefined && width * height > FLUX2_MAX_PIXELS) {
		throw new InvalidParameterError('height', `Width × Height must be at most ${FLUX2_MAX_PIXELS} pixels (about 4 megapixels; got ${width} × ${height})`);
	}
	return { ...(width === undefined ? {} : { width }), ...(height === undefined ? {} : { height }) };
}

function formatOf(value: unknown): string {
	const format = value === undefined || value === '' ? 'png' : value;
	if (typeof format !== 'string' || !(FLUX2_OUTPUT_FORMATS as readonly string[]).includes(format)) {
		throw new InvalidParameterError('outputFormat', `must be one of ${FLUX2_OUTPUT_FORMATS.join(', ')} (got ${describeValue(value)})`);
	}
	return format;
}

/** The FLUX.2 body: the prompt, `input_image`, `input_image_2`, … in order, the model's fields, the safety tolerance. */
function flux2Body(request: FluxImageRequest): Record<string, unknown> {
	const body: Record<string, unknown> = { prompt: request.prompt };
	request.images.forEach((image, i) => (body[i === 0 ? 'input_image' : `input_image_${i + 1}`] = wireImage(image)));
	return { ...body, ...request.modelFields, safety_tolerance: request.safetyTolerance };
}

function flux2(id: string, name: string, maxReferenceImages: number, flex = false): ImageModelDescriptor {
	return {
		id,
		name,
		output: 'image',
		accountLimit: 24,
		takesSeed: true,
		mediaType: 'image/png',
		endpoint: id,
		maxReferenceImages,
		properties: flex ? [...SHARED, ...FLEX] : SHARED,
		fields: (values, seed) => {
			const own = { ...sizeFields(values), output_format: formatOf(values.outputFormat) };
			const tuning = flex ? { steps: inRange('steps', values.steps, 1, 50, true), guidance: inRange('guidance', values.guidance, 1.5, 10, false) } : {};
			const defined = Object.entries(tuning).filter(([, v]) => v !== undefined);
			return { ...own, ...Object.fromEntries(defined), ...(seed === undefined ? {} : { seed }) };
		},
		body: flux2Body,
	};
}

export const flux2Pro = flux2('flux-2-pro', 'FLUX.2 [pro]', 8);
export const flux2Flex = flux2('flux-2-flex', 'FLUX.2 [flex]', 8, true);
export const flux2Max = flux2('flux-2-max', 'FLUX.2 [max]', 8);
export const flux2Klein4b = flux2('flux-2-klein-4b', 'FLUX.2 [klein 4B]', 4);
export const flux2Klein9b = flux2('flux-2-klein-9b', 'FLUX.2 [klein 9B]', 4);
