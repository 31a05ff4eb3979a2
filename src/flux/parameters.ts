/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/flux knows nothing of n8n: it throws typed FluxError / FluxParameterError, which the node layer turns into NodeApiError / NodeOperationError. */
import { z } from 'zod';
import { FluxParameterError } from './errors';
import { ASPECT_RATIOS, AspectRatio, RESOLUTIONS, Resolution } from './options';

export { ASPECT_RATIOS, RESOLUTIONS };
export type { AspectRatio, Resolution };

/** Maximum prompt length in characters (Unicode code points). */
export const MAX_PROMPT_CHARS = 20_480;
/** Maximum number of reference images. */
export const MAX_REFERENCE_IMAGES = 10;
export const MIN_SAFETY_TOLERANCE = 0;
export const MAX_SAFETY_TOLERANCE = 4;

/** Defaults used when a parameter is absent (same as the node's defaults). */
export const PARAMETER_DEFAULTS = {
	resolution: '1k' as Resolution,
	aspectRatio: 'auto' as AspectRatio,
	grounding: true,
	safetyTolerance: 2,
};

/** A reference image as sent upstream: a URL, or a binary sent as plain base64. */
export type ReferenceImage = { kind: 'url'; url: string } | { kind: 'base64'; data: string; mimeType: string };

/** The validated request for one FLUX 3 image (CONTRACTS.md). */
export interface FluxImageRequest {
	prompt: string;
	resolution: Resolution;
	aspectRatio: string;
	grounding: boolean;
	safetyTolerance: number;
	/** At most 10, order kept. */
	images: ReferenceImage[];
}

/**
 * Validated node parameters. `referenceImages` are the raw non-empty entries
 * (URL or binary property name), to be resolved by `resolveReferenceImages`.
 * `seed` is validated but never sent upstream.
 */
export interface FluxParameters {
	prompt: string;
	resolution: Resolution;
	aspectRatio: AspectRatio;
	grounding: boolean;
	safetyTolerance: number;
	seed?: number;
	referenceImages: ReferenceImageEntry[];
}

/** One non-empty reference image entry with its position among the raw entries (for error fields). */
export interface ReferenceImageEntry {
	/** Index in the raw entry list; the error field is `referenceImages[index]`. */
	index: number;
	value: string;
}

const integerLike = (field: string) =>
	z.preprocess(
		(v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v.trim()) : v),
		z
			.number({ invalid_type_error: `${field} must be an integer`, required_error: `${field} is required` })
			.int({ message: `${field} must be an integer` }),
	);

const booleanLike = z.preprocess((v) => {
	if (typeof v === 'string') {
		const s = v.trim().toLowerCase();
		if (s === 'true') return true;
		if (s === 'false') return false;
	}
	return v;
}, z.boolean({ invalid_type_error: 'must be true or false' }));

const FIELD_SCHEMAS = {
	prompt: z
		.string({ required_error: 'is required', invalid_type_error: 'must be text' })
		.transform((s) => s.trim())
		.refine((s) => s.length > 0, { message: 'is required and must not be empty' })
		.refine((s) => [...s].length <= MAX_PROMPT_CHARS, {
			message: `must be at most ${MAX_PROMPT_CHARS} characters`,
		}),
	resolution: z.enum(RESOLUTIONS, {
		errorMap: () => ({ message: `must be one of ${RESOLUTIONS.join(', ')}` }),
	}),
	aspectRatio: z.enum(ASPECT_RATIOS, {
		errorMap: () => ({ message: `must be one of ${ASPECT_RATIOS.join(', ')}` }),
	}),
	grounding: booleanLike,
	safetyTolerance: integerLike('safety tolerance').pipe(
		z
			.number()
			.min(MIN_SAFETY_TOLERANCE, { message: `must be an integer from ${MIN_SAFETY_TOLERANCE} to ${MAX_SAFETY_TOLERANCE}` })
			.max(MAX_SAFETY_TOLERANCE, { message: `must be an integer from ${MIN_SAFETY_TOLERANCE} to ${MAX_SAFETY_TOLERANCE}` }),
	),
	seed: integerLike('seed').pipe(
		z
			.number()
			.min(0, { message: `must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}` })
			.max(Number.MAX_SAFE_INTEGER, { message: `must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}` }),
	),
} as const;

function parseField<K extends keyof typeof FIELD_SCHEMAS>(field: K, value: unknown): z.output<(typeof FIELD_SCHEMAS)[K]> {
	const result = FIELD_SCHEMAS[field].safeParse(value);
	if (!result.success) {
		const issue = result.error.issues[0];
		let message = issue?.message ?? 'is invalid';
		if (issue && issue.code === 'invalid_type' && value === undefined) message = 'is required';
		throw new FluxParameterError(field, `${message} (got ${describe(value)})`);
	}
	return result.data as z.output<(typeof FIELD_SCHEMAS)[K]>;
}

function describe(value: unknown): string {
	if (value === undefined) return 'nothing';
	if (value === null) return 'null';
	if (typeof value === 'string') {
		const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
		return `"${shown}"`;
	}
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	if (Array.isArray(value)) return 'a list';
	return `a ${typeof value}`;
}

const isEmpty = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

/**
 * Flattens the `referenceImages` parameter into raw entries, keeping order: a list of
 * strings, or the node's fixedCollection rows `{ source }` (what
 * `getNodeParameter('referenceImages.images')` returns).
 */
export function flattenReferenceImageParameter(raw: unknown): unknown[] {
	if (isEmpty(raw)) return [];
	if (!Array.isArray(raw)) {
		throw new FluxParameterError(
			'referenceImages',
			`must be a list of binary property names or http(s) URLs (got ${describe(raw)})`,
		);
	}
	return raw.map((row) =>
		row !== null && typeof row === 'object' && !Array.isArray(row) && 'source' in row
			? (row as { source: unknown }).source
			: row,
	);
}

/**
 * Checks one reference-image entry's syntax: an http(s) URL, or a binary
 * property name. Other schemes (file:, ftp:, data:, …) are an error.
 */
export function classifyReferenceEntry(value: string, field: string): { kind: 'url'; url: string } | { kind: 'binary'; property: string } {
	const entry = value.trim();
	const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(entry);
	if (scheme && !/^\d+$/.test(scheme[1])) {
		const name = scheme[1].toLowerCase();
		if (name !== 'http' && name !== 'https') {
			throw new FluxParameterError(
				field,
				`"${name}:" is not supported; use an http(s) URL or the name of a binary property on the input item`,
			);
		}
		let url: URL;
		try {
			url = new URL(entry);
		} catch {
			throw new FluxParameterError(field, 'is not a valid http(s) URL');
		}
		if (!url.hostname) throw new FluxParameterError(field, 'is not a valid http(s) URL (no host)');
		if (url.username || url.password) {
			throw new FluxParameterError(field, 'URL must not contain a user name or password');
		}
		return { kind: 'url', url: entry };
	}
	if (/^\/\//.test(entry) || /^www\./i.test(entry)) {
		throw new FluxParameterError(field, 'looks like a URL without its scheme: start it with https:// (or http://)');
	}
	return { kind: 'binary', property: entry };
}

/**
 * Validates reference-image entries: empty ones are skipped, at most 10
 * remain, each is an http(s) URL or a binary property name.
 */
export function parseReferenceImageEntries(raw: unknown): ReferenceImageEntry[] {
	const flat = flattenReferenceImageParameter(raw);
	const entries: ReferenceImageEntry[] = [];
	flat.forEach((value, index) => {
		const field = `referenceImages[${index}]`;
		if (isEmpty(value)) return;
		if (typeof value !== 'string') {
			throw new FluxParameterError(field, `must be a binary property name or an http(s) URL (got ${describe(value)})`);
		}
		classifyReferenceEntry(value, field);
		entries.push({ index, value: value.trim() });
	});
	if (entries.length > MAX_REFERENCE_IMAGES) {
		throw new FluxParameterError(
			'referenceImages',
			`at most ${MAX_REFERENCE_IMAGES} reference images are allowed (got ${entries.length})`,
		);
	}
	return entries;
}

/**
 * Validates raw node parameters (an object with `prompt`, `resolution`,
 * `aspectRatio`, `grounding`, `safetyTolerance`, `seed`, `referenceImages`).
 * Absent optional fields take the node defaults. Throws a
 * {@link FluxParameterError} naming the first invalid field.
 */
export function parseFluxParameters(raw: unknown): FluxParameters {
	if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
		throw new FluxParameterError('parameters', `must be an object (got ${describe(raw)})`);
	}
	const p = raw as Record<string, unknown>;
	const prompt = parseField('prompt', p.prompt);
	const resolution = isEmpty(p.resolution) ? PARAMETER_DEFAULTS.resolution : parseField('resolution', p.resolution);
	const aspectRatio = isEmpty(p.aspectRatio) ? PARAMETER_DEFAULTS.aspectRatio : parseField('aspectRatio', p.aspectRatio);
	const grounding = isEmpty(p.grounding) ? PARAMETER_DEFAULTS.grounding : parseField('grounding', p.grounding);
	const safetyTolerance = isEmpty(p.safetyTolerance)
		? PARAMETER_DEFAULTS.safetyTolerance
		: parseField('safetyTolerance', p.safetyTolerance);
	const seed = isEmpty(p.seed) ? undefined : parseField('seed', p.seed);
	const referenceImages = parseReferenceImageEntries(p.referenceImages);
	const out: FluxParameters = { prompt, resolution, aspectRatio, grounding, safetyTolerance, referenceImages };
	if (seed !== undefined) out.seed = seed;
	return out;
}

/** Builds the request from validated parameters and resolved reference images. */
export function toFluxImageRequest(params: FluxParameters, images: ReferenceImage[] = []): FluxImageRequest {
	return {
		prompt: params.prompt,
		resolution: params.resolution,
		aspectRatio: params.aspectRatio,
		grounding: params.grounding,
		safetyTolerance: params.safetyTolerance,
		images,
	};
}

const referenceImageSchema = z.discriminatedUnion('kind', [
	z.object({ kind: z.literal('url'), url: z.string().regex(/^https?:\/\//i, 'must be an http(s) URL') }),
	z.object({
		kind: z.literal('base64'),
		data: z
			.string()
			.min(1)
			.regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be plain base64 (no data: prefix)'),
		mimeType: z.string(),
	}),
]);

const requestSchema = z.object({
	prompt: FIELD_SCHEMAS.prompt,
	resolution: FIELD_SCHEMAS.resolution,
	aspectRatio: FIELD_SCHEMAS.aspectRatio,
	grounding: z.boolean({ invalid_type_error: 'must be true or false' }),
	safetyTolerance: z.number().int().min(MIN_SAFETY_TOLERANCE).max(MAX_SAFETY_TOLERANCE),
	images: z.array(referenceImageSchema).max(MAX_REFERENCE_IMAGES, `at most ${MAX_REFERENCE_IMAGES} reference images`),
});

/**
 * Re-validates a {@link FluxImageRequest} built elsewhere (defensive check
 * before paying for a job). Throws a {@link FluxParameterError} naming the field.
 */
export function validateFluxImageRequest(req: unknown): FluxImageRequest {
	const result = requestSchema.safeParse(req);
	if (!result.success) {
		const issue = result.error.issues[0];
		const path = issue?.path ?? [];
		let field = 'request';
		if (path.length > 0) {
			field = String(path[0]);
			if (field === 'images') {
				field = typeof path[1] === 'number' ? `referenceImages[${path[1]}]` : 'referenceImages';
			}
		}
		throw new FluxParameterError(field, issue?.message ?? 'is invalid');
	}
	return result.data as FluxImageRequest;
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
