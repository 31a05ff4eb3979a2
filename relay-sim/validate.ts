/** Validation of the flux-3-image submit body (FLUX_API.md). Strict on purpose: catches client bugs. */
import { z } from 'zod';

/** BFL's values, written here (not taken from the nodes' declarations) so that the simulator checks them. */
const RESOLUTIONS = ['768sq', '1k', '1.5k', '2k', '4k'] as const;
const VIDEO_ASPECT_RATIOS = ['auto', '21:9', '2:1', '16:9', '4:3', '1:1', '3:4', '9:16'] as const;
const VIDEO_RESOLUTIONS = ['hd', 'fhd'] as const;

export const MAX_REFERENCE_IMAGES = 10;

const imageRef = z
	.string()
	.min(1, 'must be a non-empty string')
	.refine((s) => !/^data:/i.test(s), 'send plain base64, not a data: URI')
	.refine((s) => /^data:/i.test(s) || /^https?:\/\//i.test(s) || /^[A-Za-z0-9+/_=\s-]+$/.test(s), 'must be an http(s) URL or base64');

const submitBody = z
	.object({
		prompt: z.string({ required_error: 'is required', invalid_type_error: 'must be a string' }).refine(
			(s) => s.trim().length > 0,
			'must not be empty',
		),
		images: z.array(imageRef).max(MAX_REFERENCE_IMAGES, `at most ${MAX_REFERENCE_IMAGES} images`).optional(),
		aspect_ratio: z.string().regex(/^(auto|\d{1,2}:\d{1,2})$/, "must be 'auto' or W:H").optional(),
		resolution: z.enum(RESOLUTIONS).optional(),
		grounding: z.boolean().optional(),
		safety_tolerance: z.number().int().min(0).max(6).optional(),
		seed: z.number().int().optional(),
		output_format: z.enum(['png', 'jpeg', 'webp']).optional(),
		webhook_url: z.string().url().optional(),
		webhook_secret: z.string().optional(),
	})
	.strict();

export type SubmitBody = z.infer<typeof submitBody>;

export type Validation = { ok: true; body: SubmitBody } | { ok: false; status: 400 | 422; message: string };

/** flux-3-video (FLUX_API.md): strict; a field outside its mode is a 422, like BFL. Sizes on the decoded bytes. */
const MB = 1024 * 1024;
const base64Bytes = (s: string) => Math.floor((s.replace(/\s/g, '').length * 3) / 4);
const media = (limitMb: number) =>
	imageRef.refine((s) => /^https?:\/\//i.test(s) || base64Bytes(s) <= limitMb * MB, `larger than ${limitMb} MB`);
const keyframe = z.union([media(20), z.tuple([z.number().min(0), media(20)])]);
const videoBody = z
	.object({
		mode: z.enum(['t2v', 'i2v', 'v2v', 'draft_enhance']),
		prompt: z.string({ required_error: 'is required' }).refine((s) => s.trim().length > 0, 'must not be empty'),
		aspect_ratio: z.enum(VIDEO_ASPECT_RATIOS).optional(),
		resolution: z.enum(VIDEO_RESOLUTIONS).optional(),
		duration: z.union([z.literal('auto'), z.number().int().min(5).max(20)]).optional(),
		generate_audio: z.boolean().optional(),
		keyframes: z.array(keyframe).min(1).max(10).optional(),
		start_video: media(50).optional(),
	})
	.strict()
	.superRefine((body, ctx) => {
		const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
		if (body.mode !== 'i2v' && body.keyframes !== undefined) issue('keyframes', `not allowed in mode ${body.mode}`);
		if (body.mode !== 'v2v' && body.start_video !== undefined) issue('start_video', `not allowed in mode ${body.mode}`);
		if (body.mode === 'i2v' && body.keyframes === undefined) issue('keyframes', 'required in mode i2v');
		if (body.mode === 'v2v' && body.start_video === undefined) issue('start_video', 'required in mode v2v');
		const frames = body.keyframes ?? [];
		const timed = frames.filter(Array.isArray).length;
		if (timed > 0 && timed !== frames.length) issue('keyframes', 'timestamp all keyframes or none');
		if ((timed > 0 || frames.length >= 3) && typeof body.duration !== 'number') issue('duration', 'a number is required with timestamps or 3+ keyframes');
		const times = frames.filter((f): f is [number, string] => Array.isArray(f)).map((f) => f[0]);
		times.forEach((t, i) => {
			if (i > 0 && t - times[i - 1] < 1 / 24 - 1e-9) issue('keyframes', 'timestamps must increase by at least 1/24 s');
			if (typeof body.duration === 'number' && t > body.duration) issue('keyframes', 'timestamp past the duration');
		});
	});

/** The FLUX.2 endpoints the simulator serves, with their reference images at most (BFL's API reference). */
export const FLUX2_ENDPOINTS: Readonly<Record<string, number>> = {
	'flux-2-pro': 8,
	'flux-2-flex': 8,
	'flux-2-max': 8,
	'flux-2-klein-4b': 4,
	'flux-2-klein-9b': 4,
};

const side = z.number().int().min(64).refine((n) => n % 16 === 0, 'must be a multiple of 16');

/** A FLUX.2 body (FLUX_API.md): strict, so a FLUX 3 field (`images`, `resolution`, …) is a 422 as upstream. */
function flux2Body(endpoint: string) {
	const inputs = Object.fromEntries(
		Array.from({ length: FLUX2_ENDPOINTS[endpoint] ?? 0 }, (_, i) => [i === 0 ? 'input_image' : `input_image_${i + 1}`, imageRef.optional()]),
	);
	const flex: z.ZodRawShape = endpoint === 'flux-2-flex' ? { steps: z.number().int().min(1).max(50).optional(), guidance: z.number().min(1.5).max(10).optional() } : {};
	return z
		.object({
			prompt: z.string({ required_error: 'is required' }).refine((s) => s.trim().length > 0, 'must not be empty'),
			...inputs,
			...flex,
			seed: z.number().int().optional(),
			width: side.optional(),
			height: side.optional(),
			safety_tolerance: z.number().int().min(0).max(5).optional(),
			output_format: z.enum(['png', 'jpeg']).optional(),
			webhook_url: z.string().url().optional(),
			webhook_secret: z.string().optional(),
		})
		.strict()
		.refine((b) => Number(b.width ?? 1024) * Number(b.height ?? 1024) <= 2048 * 2048, { message: 'width × height must be at most 4 megapixels', path: ['width'] });
}

/** A FLUX.2 submit body for `endpoint` (one of FLUX2_ENDPOINTS). */
export function validateFlux2Submit(raw: Buffer, endpoint: string): Validation & { parsed?: unknown } {
	return validateWith(flux2Body(endpoint), raw);
}

export function validateVideoSubmit(raw: Buffer): Validation & { parsed?: unknown } {
	return validateWith(videoBody, raw);
}

export function validateSubmit(raw: Buffer): Validation & { parsed?: unknown } {
	return validateWith(submitBody, raw);
}

function validateWith(schema: z.ZodTypeAny, raw: Buffer): Validation & { parsed?: unknown } {
	let parsed: unknown;
	try {
		parsed = JSON.parse(raw.toString('utf8'));
	} catch {
		return { ok: false, status: 400, message: 'Invalid JSON body' };
	}
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
		return { ok: false, status: 422, message: 'body must be a JSON object', parsed };
	}
	const result = schema.safeParse(parsed);
	if (result.success) return { ok: true, body: result.data as SubmitBody, parsed };
	const message = result.error.issues
		.map((issue) => {
			const path = issue.path.length ? issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('').slice(1) : 'body';
			return issue.code === 'unrecognized_keys' ? `unknown field(s): ${issue.keys.join(', ')}` : `${path}: ${issue.message}`;
		})
		.join('; ');
	return { ok: false, status: 422, message, parsed };
}
