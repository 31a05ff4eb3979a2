/** Validation of the flux-3-image submit body (FLUX_API.md). Strict on purpose: catches client bugs. */
import { z } from 'zod';
import { RESOLUTIONS } from '../src/flux/options';

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

export function validateSubmit(raw: Buffer): Validation & { parsed?: unknown } {
	let parsed: unknown;
	try {
		parsed = JSON.parse(raw.toString('utf8'));
	} catch {
		return { ok: false, status: 400, message: 'Invalid JSON body' };
	}
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
		return { ok: false, status: 422, message: 'body must be a JSON object', parsed };
	}
	const result = submitBody.safeParse(parsed);
	if (result.success) return { ok: true, body: result.data, parsed };
	const message = result.error.issues
		.map((issue) => {
			const path = issue.path.length ? issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('').slice(1) : 'body';
			return issue.code === 'unrecognized_keys' ? `unknown field(s): ${issue.keys.join(', ')}` : `${path}: ${issue.message}`;
		})
		.join('; ');
	return { ok: false, status: 422, message, parsed };
}
