/**
 * The FLUX nodes' parameters, image and video: the models' own (src/models, each declared once) and the node's own
 * (Skip Error, Seed, Options), as the editor shows them and as one item's raw parameters are validated.
 */
import { z } from 'zod';
import type { INodeProperties } from 'n8n-workflow';

import type { FluxImageRequest, ReferenceImage } from '../flux';
import { booleanLike, integerRange, jobOptionsSchema, jobRunOptions, MAX_NEW_JOBS_PER_EXECUTION, MAX_TIMEOUT_MINUTES } from '../parameters/fieldSchemas';
import type { MediaEntry } from '../parameters/mediaSources';
import { DEFAULT_IMAGE_MODEL, editorProperties, flux3Video, imageModel, imageModels, isPrimitive, readValues, takesSeed, type ModelDescriptor, type Parameter, type Values } from '../models';
import { labelsOf, type ParameterLabels } from './invalidInput';

/**
 * What every FLUX node's item says about its run (image and video): Skip Error, the Seed (the store's key part; sent
 * upstream only to models that take a seed: FLUX.2), the Options (jobRunOptions).
 */
export type JobRunParameters = { skipError: boolean; seed?: number } & ReturnType<typeof jobRunOptions>;

/** How the two kinds of node word and size their own parameters. */
const KINDS = {
	image: {
		noun: 'image',
		stored: 'result',
		skipError: 'Whether to return a white 512×512 image (status skipped_error, with the reason) instead of failing when generation fails',
		seed: 'FLUX 3 Image takes no seed, so there this number is never sent to the API: it is the key of the stored results (FLUX.2 models also receive it as their seed). The same seed with the same inputs returns the stored image (no new paid job); another seed makes a new image.',
		timeoutMinutes: 10,
		download: { displayName: 'Max Image Size (MB)', fallback: 50, max: 500, description: 'A larger download fails the job instead of filling memory. From 1 to 500.' },
	},
	video: {
		noun: 'clip',
		stored: 'clip',
		skipError: 'Whether to return an item with status skipped_error and the reason (and no clip) instead of failing when generation fails',
		seed: 'This number is never sent to the API: it is the key of the stored results. The same seed with the same inputs returns the stored clip (no new paid job); another seed makes a new clip.',
		timeoutMinutes: 30,
		download: { displayName: 'Max Video Size (MB)', fallback: 1024, max: 10_240, description: 'A larger clip fails the job. Clips stream to disk, not memory. More than 0, at most 10240.' },
	},
} as const;
export type FluxNodeKindName = keyof typeof KINDS;

/** Skip Error, Seed (Cache Key) and Options of a node of `kind`. */
function jobParameters(kind: FluxNodeKindName): Parameter[] {
	const k = KINDS[kind];
	const { noun, stored } = k;
	const fresh = `For a new ${noun} on every run, set it to an expression such as {{ $now.toMillis() }}, or set Options → Cache to Refresh.`;
	return [
		{ name: 'skipError', property: { displayName: 'Skip Error', name: 'skipError', type: 'boolean', default: false, description: k.skipError }, schema: booleanLike(false) },
		{
			name: 'seed',
			property: { displayName: 'Seed (Cache Key)', name: 'seed', type: 'number', default: 0, typeOptions: { numberPrecision: 0 }, description: `${k.seed} ${fresh}` },
			schema: integerRange(0, Number.MAX_SAFE_INTEGER),
		},
		{
			name: 'options',
			property: {
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Cache',
						name: 'cache',
						type: 'options',
						default: 'reuse',
						options: [
							{ name: 'Reuse', value: 'reuse', description: `Identical inputs with the same Seed return the stored ${stored}; an unfinished earlier job is re-attached` },
							{ name: 'Refresh', value: 'refresh', description: `Always send a new (paid) job; its ${stored} replaces the stored one` },
							{ name: 'Off', value: 'off', description: `Neither read nor write stored ${stored}s (an unfinished earlier job is still re-attached)` },
						],
						description: `Whether to reuse stored ${stored}s. For a new ${noun} on every run choose Refresh, or set Seed to an expression such as {{ $now.toMillis() }}.`,
					},
					{
						displayName: 'Timeout (Minutes)',
						name: 'timeoutMinutes',
						type: 'number',
						default: k.timeoutMinutes,
						typeOptions: { minValue: 1, maxValue: MAX_TIMEOUT_MINUTES },
						description: `How long one job may take in all: submit, polling and download. More than 0, at most ${MAX_TIMEOUT_MINUTES} (24 hours).`,
					},
					{ displayName: k.download.displayName, name: 'maxDownloadMb', type: 'number', default: k.download.fallback, typeOptions: { minValue: 1, maxValue: k.download.max }, description: k.download.description },
					{
						displayName: 'Max New Jobs per Execution',
						name: 'maxNewJobsPerExecution',
						type: 'number',
						default: 0,
						typeOptions: { minValue: 0, maxValue: MAX_NEW_JOBS_PER_EXECUTION, numberPrecision: 0 },
						description:
							'At most this many new paid jobs from this node in one execution, across all its runs (e.g. every batch of a Loop Over Items); jobs beyond it are not sent and fail with errorKind budget_exceeded. Results from the store do not count. 0 = no limit.',
					},
				],
			},
			// Max download size from 1 MB, as in the UI: a smaller cap would fail every paid job at its download.
			schema: jobOptionsSchema(k.timeoutMinutes, { max: k.download.max, fallback: k.download.fallback, min: 1 }),
		},
	];
}

/** The image nodes' Model option. */
function modelProperty(): INodeProperties {
	return {
		displayName: 'Model',
		name: 'model',
		type: 'options',
		default: DEFAULT_IMAGE_MODEL,
		options: imageModels().map((m) => ({ name: m.name, value: m.id, description: `${m.id}: up to ${m.maxReferenceImages} reference images${takesSeed(m) ? '; takes the Seed' : ''}` })),
		description: 'Which FLUX model makes the image; each shows its own parameters',
	};
}

const modelsOf = (kind: FluxNodeKindName): readonly ModelDescriptor[] => (kind === 'image' ? imageModels() : [flux3Video]);

/**
 * The editor properties of a FLUX node of `kind` (the serial node's description; the twin copies it): the Model
 * option (image), every model's own parameters shown for the models and modes that take them, Skip Error, Seed,
 * and the Options with the models' own options.
 */
export function fluxNodeProperties(kind: FluxNodeKindName): INodeProperties[] {
	const own = editorProperties(modelsOf(kind), 'model');
	const [skipError, seed, options] = jobParameters(kind).map((p) => p.property as INodeProperties);
	return [...(kind === 'image' ? [modelProperty()] : []), ...own.top, skipError, seed, { ...options, options: [...(options.options as INodeProperties[]), ...own.options] }];
}

/** The labels errors use for a node of `kind`: its editor's display names. */
export const fluxNodeLabels = (kind: FluxNodeKindName): ParameterLabels => labelsOf(fluxNodeProperties(kind));

/** The top-level parameter names a node of `kind` reads, with their defaults (what n8n hands over when unset). */
export function fluxNodeParameterDefaults(kind: FluxNodeKindName): Record<string, unknown> {
	return Object.fromEntries(fluxNodeProperties(kind).map((p) => [p.name, p.default]));
}

/** The declarations items are validated by, made once per kind (the editor's copies stay fresh per description). */
const validatedJobParameters = { image: jobParameters('image'), video: jobParameters('video') };

/** An item's Skip Error, Seed and Options, validated (the Options as milliseconds, bytes, a cache mode, a count). */
function validateJobRun(kind: FluxNodeKindName, raw: Values): JobRunParameters {
	const { skipError, seed, options } = readValues(validatedJobParameters[kind], raw) as { skipError: boolean; seed?: number; options: z.infer<ReturnType<typeof jobOptionsSchema>> };
	return { skipError, seed, ...jobRunOptions(options) };
}

/**
 * Valid results by raw Options object (a node run's items share theirs: FluxParameterReader), with the Options'
 * entries they were made from (an object changed since is validated again), then by raw Skip Error and Seed.
 */
type KnownRuns = WeakMap<object, { entries: Array<[string, unknown]>; byValues: Map<string, JobRunParameters> }>;
const validatedRuns: Record<FluxNodeKindName, KnownRuns> = { image: new WeakMap(), video: new WeakMap() };
const sameEntries = (a: Array<[string, unknown]>, b: Array<[string, unknown]>) => a.length === b.length && a.every(([key, value], i) => key === b[i][0] && Object.is(value, b[i][1]));

/**
 * {@link validateJobRun}, once per distinct raw Skip Error, Seed and Options (the Options' parse is the costly one):
 * the same raw values validate the same way, so the items of a run share one result (callers copy its fields; an
 * invalid value throws every time).
 */
function jobRunParameters(kind: FluxNodeKindName, raw: Values): JobRunParameters {
	const { skipError, seed, options } = raw;
	if (options === null || typeof options !== 'object' || !isPrimitive(skipError) || !isPrimitive(seed)) return validateJobRun(kind, raw);
	const entries = Object.entries(options);
	let known = validatedRuns[kind].get(options);
	if (!known || !sameEntries(known.entries, entries)) validatedRuns[kind].set(options, (known = { entries, byValues: new Map() }));
	const key = JSON.stringify([typeof skipError, String(skipError), typeof seed, String(seed)]);
	let validated = known.byValues.get(key);
	if (!validated) known.byValues.set(key, (validated = validateJobRun(kind, raw)));
	return validated;
}

/**
 * Validate one image item's raw parameters (as n8n hands them over) once, at the boundary: the Model, then the
 * model's own parameters in their order and the checks across them, then Skip Error, Seed and Options. Blank
 * values take the defaults; throws InvalidParameterError naming the first invalid field.
 */
export function parseFluxParameters(raw: Values) {
	const model = imageModel(raw.model);
	// The model's values by parameter name (`referenceImages`: the entries to resolve).
	const values = readValues(model.parameters, raw);
	model.check?.(values);
	return { model, values, prompt: values.prompt as string, referenceImages: (values.referenceImages ?? []) as MediaEntry[], ...jobRunParameters('image', raw) };
}

/** One image item's parameters, validated: its model, that model's values, the run's. */
export type FluxParameters = ReturnType<typeof parseFluxParameters>;

/** The client's request from an item's parameters and its resolved reference images. */
export function toFluxImageRequest(params: FluxParameters, images: ReferenceImage[] = []): FluxImageRequest {
	return { model: params.model, prompt: params.prompt, values: params.values, images };
}

/** One clip item's parameters, validated: FLUX 3 Video's values (only its mode's), the run's. */
export type FluxVideoParameters = Values & JobRunParameters & { mode: string };

/** Validate one video item's raw parameters once, at the boundary (as parseFluxParameters). */
export function parseFluxVideoParameters(raw: Values): FluxVideoParameters {
	const values = readValues(flux3Video.parameters, raw);
	flux3Video.check?.(values);
	return { ...values, mode: values.mode as string, ...jobRunParameters('video', raw) };
}
