import { z } from 'zod';

import { ASPECT_RATIOS, RESOLUTIONS, type AspectRatio, type Resolution } from '../flux/options';
import type { FluxImageRequest, ImageModelWire, ReferenceImage } from '../flux/request';
import type { CacheMode } from '../store/resumeDecision';
import { describeValue, fieldOf, InvalidParameterError } from '../parameters/invalidParameter';
import {
	blankIsAbsent,
	booleanLike,
	choice,
	integerRange,
	isEmpty,
	jobOptionsSchema,
	jobRunOptions,
	parseItem,
	promptSchema,
	valueIssueError,
} from '../parameters/fieldSchemas';
import { DEFAULT_IMAGE_MODEL, imageModel, imageModels, type ModelFieldValues } from '../models';

/** Maximum number of reference images. */
export const MAX_REFERENCE_IMAGES = 10;
export const MIN_SAFETY_TOLERANCE = 0;
export const MAX_SAFETY_TOLERANCE = 4;
/** Timeout (Minutes): the default. */
export const DEFAULT_TIMEOUT_MINUTES = 10;
/** Max Image Size (MB): default and maximum. */
export const DEFAULT_MAX_IMAGE_MB = 50;
export const MAX_IMAGE_MB = 500;
/** The smallest download cap (MB), as in the UI: a smaller one would fail every paid job at its download. */
export const MIN_IMAGE_MB = 1;
/** One non-empty reference image entry, classified, with its position among the raw entries (for error fields). */
export type ReferenceEntry = ClassifiedReference & { index: number };
type ClassifiedReference = { kind: 'url'; url: string } | { kind: 'binary'; property: string };

/** What every FLUX node's item says about its run (image and video): Skip Error, the Seed, the Options. */
export interface JobRunParameters {
	skipError: boolean;
	/** The store's key part; sent upstream only to models that take a seed (FLUX.2). */
	seed?: number;
	timeoutMs: number;
	maxDownloadBytes: number;
	/** Options → Cache: `reuse` (default), `refresh`, `off`. */
	cacheMode: CacheMode;
	/** Options → Max New Jobs per Execution (0: no limit). */
	maxNewJobsPerExecution: number;
}

/** One item's parameters, validated (what the node's parameters mean, not how n8n shapes them). */
export interface FluxParameters extends JobRunParameters {
	/** Another model than FLUX 3 Image (src/models), as the Model parameter names it; absent: FLUX 3 Image. */
	model?: string;
	/** That model's own parameters, raw (its descriptor validates them); absent when it has none. */
	modelFields?: ModelFieldValues;
	prompt: string;
	resolution: Resolution;
	aspectRatio: AspectRatio;
	grounding: boolean;
	safetyTolerance: number;
	referenceImages: ReferenceEntry[];
}

/** Names JavaScript objects already carry (`__proto__`, `constructor`, …): never binary property names. */
function isReservedName(name: string): boolean {
	return name === '__proto__' || name === 'prototype' || name in Object.prototype;
}

/**
 * One reference entry's syntax: an http(s) URL, or a binary property name.
 * Other schemes (file:, ftp:, data:, …) are an error. Returns an error message or the entry.
 */
export function classifyReferenceEntry(value: string): ClassifiedReference | { error: string } {
	const entry = value.trim();
	const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(entry);
	if (scheme && !/^\d+$/.test(scheme[1])) {
		const name = scheme[1].toLowerCase();
		if (name !== 'http' && name !== 'https') {
			return { error: `"${name}:" is not supported; use an http(s) URL or the name of a binary property on the input item` };
		}
		let url: URL;
		try {
			url = new URL(entry);
		} catch {
			return { error: 'is not a valid http(s) URL' };
		}
		if (!url.hostname) return { error: 'is not a valid http(s) URL (no host)' };
		if (url.username || url.password) return { error: 'URL must not contain a user name or password' };
		return { kind: 'url', url: entry };
	}
	if (/^\/\//.test(entry) || /^www\./i.test(entry)) {
		return { error: 'looks like a URL without its scheme: start it with https:// (or http://)' };
	}
	if (isReservedName(entry)) {
		return { error: `"${entry}" cannot be a binary property name (the name is reserved in JavaScript): rename the binary property` };
	}
	return { kind: 'binary', property: entry };
}

/** The node's fixedCollection rows `{ source }` (or plain strings), flattened in order. */
function flattenRows(raw: unknown): unknown {
	if (isEmpty(raw)) return [];
	if (!Array.isArray(raw)) return raw;
	return raw.map((row) =>
		row !== null && typeof row === 'object' && !Array.isArray(row) && 'source' in row ? (row as { source: unknown }).source : row,
	);
}

const referenceImagesSchema = z.preprocess(
	flattenRows,
	z
		.array(z.unknown(), { invalid_type_error: 'must be a list of binary property names or http(s) URLs' })
		.transform((values, ctx) => {
			const entries: ReferenceEntry[] = [];
			values.forEach((value, index) => {
				if (isEmpty(value)) return;
				const classified =
					typeof value === 'string'
						? classifyReferenceEntry(value)
						: { error: `must be a binary property name or an http(s) URL (got ${describeValue(value)})` };
				if ('error' in classified) ctx.addIssue({ code: 'custom', path: [index], message: classified.error });
				else entries.push({ index, ...classified });
			});
			if (entries.length > MAX_REFERENCE_IMAGES) {
				ctx.addIssue({
					code: 'custom',
					message: `at most ${MAX_REFERENCE_IMAGES} reference images are allowed (got ${entries.length})`,
				});
			}
			return entries;
		}),
);

/** The one schema of a FLUX 3 Image item's parameters, as n8n hands them over. */
const parametersSchema = z.object({
	model: z.preprocess(
		blankIsAbsent,
		z
			.string({ invalid_type_error: 'must be a model name' })
			.superRefine((id, ctx) => {
				const ids = imageModels().map((m) => m.id);
				if (!ids.includes(id)) ctx.addIssue({ code: 'custom', message: `must be one of ${ids.join(', ')}` });
			})
			.optional(),
	).transform((id) => (id === DEFAULT_IMAGE_MODEL ? undefined : id)),
	prompt: promptSchema,
	resolution: choice(RESOLUTIONS, '1k'),
	aspectRatio: choice(ASPECT_RATIOS, 'auto'),
	grounding: booleanLike(true),
	safetyTolerance: integerRange(MIN_SAFETY_TOLERANCE, MAX_SAFETY_TOLERANCE).transform((v) => v ?? 2),
	seed: integerRange(0, Number.MAX_SAFE_INTEGER),
	referenceImages: referenceImagesSchema,
	skipError: booleanLike(false),
	options: jobOptionsSchema(DEFAULT_TIMEOUT_MINUTES, { max: MAX_IMAGE_MB, fallback: DEFAULT_MAX_IMAGE_MB, min: MIN_IMAGE_MB }),
});

/** The error for the first issue: field, what is wrong, and (except for reference entries) the value it got. */
function issueError(issue: z.ZodIssue, raw: unknown): InvalidParameterError {
	if (issue.path[0] !== 'referenceImages') return valueIssueError(issue, raw);
	const got = issue.path.length === 1 && issue.code === 'invalid_type' ? ` (got ${describeValue((raw as Record<string, unknown>).referenceImages)})` : '';
	return new InvalidParameterError(fieldOf(issue.path), `${issue.message}${got}`);
}

/** The parameters of one item, in the order their errors are reported (the first invalid one wins). */
export const FLUX_PARAMETER_NAMES = Object.keys(parametersSchema.shape) as FluxParameterName[];
export type FluxParameterName = keyof typeof parametersSchema.shape;
type ParsedFields = z.infer<typeof parametersSchema>;

/**
 * Validate one raw parameter value, as parseFluxParameters would inside a whole item: the value or the
 * same InvalidParameterError. A value without an expression is the same for every item, so its result can be
 * kept for the whole node run (see FluxParameterReader).
 */
export function parseFluxParameter<N extends FluxParameterName>(name: N, raw: unknown): ParsedFields[N] {
	const parsed = parametersSchema.shape[name].safeParse(raw);
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		throw issueError({ ...issue, path: [name, ...issue.path] }, { [name]: raw });
	}
	return parsed.data as ParsedFields[N];
}

/** Validated fields as FluxParameters (the options become milliseconds, bytes and a cache mode). */
export function toFluxParameters(fields: ParsedFields, modelFields: ModelFieldValues = {}): FluxParameters {
	const { options, ...p } = fields;
	return {
		...p,
		...(Object.keys(modelFields).length > 0 ? { modelFields } : {}),
		...jobRunOptions(options),
	};
}

/**
 * Validate one item's raw parameters (prompt, resolution, aspectRatio, grounding,
 * safetyTolerance, seed, referenceImages rows, skipError, options) once, at the
 * boundary. Blank values take the node's defaults. Throws InvalidParameterError
 * naming the first invalid field and what was wrong.
 */
export function parseFluxParameters(raw: unknown): FluxParameters {
	const fields = parseItem(parametersSchema, raw, issueError);
	const own = fields.model === undefined ? [] : imageModel(fields.model).properties.map((p) => [p.name, (raw as Record<string, unknown>)[p.name]]);
	return toFluxParameters(fields, Object.fromEntries(own));
}

/** The client's request from validated parameters and resolved reference images; another model than FLUX 3 Image with its fields. */
export function toFluxImageRequest(params: FluxParameters, images: ReferenceImage[] = [], model?: { descriptor: ImageModelWire; fields: Record<string, unknown> }): FluxImageRequest {
	return {
		prompt: params.prompt,
		resolution: params.resolution,
		aspectRatio: params.aspectRatio,
		grounding: params.grounding,
		safetyTolerance: params.safetyTolerance,
		images,
		...(model ? { model: model.descriptor, modelFields: model.fields } : {}),
	};
}
