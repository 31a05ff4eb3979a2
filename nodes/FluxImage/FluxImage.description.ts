import { NodeConnectionTypes, type INodeTypeDescription } from 'n8n-workflow';

import { MAX_IMAGE_MB } from '../../src/fluxN8n/fluxParameters';
import { MAX_TIMEOUT_MINUTES } from '../../src/parameters/fieldSchemas';
import { MAX_NEW_JOBS_OPTION } from '../../src/fluxN8n/maxNewJobsOption';
import { imageModelProperties } from '../../src/models/imageModels';

/** The Model option and each model's own parameters (src/models): a registered model appears with no edit here. */
const modelParameters = imageModelProperties();

/**
 * The FLUX 3 Image node's description. The concurrent twin is generated from
 * this object (src/twin), so a parameter added here appears there too.
 */
export const fluxImageDescription: INodeTypeDescription = {
	displayName: 'FLUX 3 Image',
	name: 'fluxImage',
	icon: 'file:fluxImage.svg',
	group: ['transform'],
	version: 1,
	subtitle:
		'={{($parameter["model"] || "flux-3-image") === "flux-3-image" ? $parameter["resolution"] + " · " + $parameter["aspectRatio"] : $parameter["model"] + " · " + $parameter["width"] + " × " + $parameter["height"]}}',
	description: 'Generate or edit an image with FLUX 3 Image (one item at a time)',
	defaults: { name: 'FLUX 3 Image' },
	usableAsTool: true,
	inputs: [NodeConnectionTypes.Main],
	outputs: [NodeConnectionTypes.Main],
	credentials: [{ name: 'fluxApi', required: true, testedBy: 'fluxApiTest' }],
	hints: [
		{
			message:
				'Identical inputs with the same Seed reuse the stored result (no new paid job). For a new image on every run, set Seed to an expression such as {{ $now.toMillis() }}, or set Options → Cache to Refresh.',
			type: 'info',
			location: 'outputPane',
			whenToDisplay: 'afterExecution',
			// Only while Cache is Reuse (the default): with Refresh or Off nothing is reused, and the hint would mislead.
			displayCondition: '={{ !["refresh", "off"].includes(($parameter["options"] || {})["cache"]) }}',
		},
	],
	properties: [
		...modelParameters.slice(0, 1),
		{
			displayName: 'Prompt',
			name: 'prompt',
			type: 'string',
			typeOptions: { rows: 4 },
			default: '',
			required: true,
			placeholder: 'A studio photo of a ceramic mug on oak, soft window light',
			description: 'What to generate, or how to edit the reference images (at most 20,480 characters)',
		},
		...modelParameters.slice(1),
		{
			displayName: 'Safety Tolerance',
			name: 'safetyTolerance',
			type: 'number',
			default: 2,
			typeOptions: { minValue: 0, maxValue: 4, numberPrecision: 0 },
			description:
				'How strictly the prompt, the reference images and the result are moderated: a whole number from 0 (strictest) to 4 (most permissive), default 2, on every model. A refused job ends with status Request Moderated or Content Moderated.',
		},
		{
			displayName: 'Reference Images',
			name: 'referenceImages',
			type: 'fixedCollection',
			placeholder: 'Add Reference Image',
			typeOptions: { multipleValues: true, multipleValueButtonText: 'Add Reference Image' },
			default: {},
			description: 'Up to ten images (FLUX 3 Image), eight (FLUX.2 [pro], [flex], [max]) or four (FLUX.2 [klein]) to edit or take style from, in this order',
			options: [
				{
					displayName: 'Image',
					name: 'images',
					values: [
						{
							displayName: 'Binary Property or URL',
							name: 'source',
							type: 'string',
							default: '',
							placeholder: 'data',
							description:
								'The name of a binary property on the input item (e.g. data), or an http(s) URL of an image',
						},
					],
				},
			],
		},
		{
			displayName: 'Skip Error',
			name: 'skipError',
			type: 'boolean',
			default: false,
			description:
				'Whether to return a white 512×512 image (status skipped_error, with the reason) instead of failing when generation fails',
		},
		{
			displayName: 'Seed (Cache Key)',
			name: 'seed',
			type: 'number',
			default: 0,
			typeOptions: { numberPrecision: 0 },
			description:
				'FLUX 3 Image takes no seed, so there this number is never sent to the API: it is the key of the stored results (FLUX.2 models also receive it as their seed). The same seed with the same inputs returns the stored image (no new paid job); another seed makes a new image. For a new image on every run, set it to an expression such as {{ $now.toMillis() }}, or set Options → Cache to Refresh.',
		},
		{
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
						{
							name: 'Reuse',
							value: 'reuse',
							description: 'Identical inputs with the same Seed return the stored result; an unfinished earlier job is re-attached',
						},
						{
							name: 'Refresh',
							value: 'refresh',
							description: 'Always send a new (paid) job; its result replaces the stored one',
						},
						{
							name: 'Off',
							value: 'off',
							description: 'Neither read nor write stored results (an unfinished earlier job is still re-attached)',
						},
					],
					description:
						'Whether to reuse stored results. For a new image on every run choose Refresh, or set Seed to an expression such as {{ $now.toMillis() }}.',
				},
				{
					displayName: 'Timeout (Minutes)',
					name: 'timeoutMinutes',
					type: 'number',
					default: 10,
					typeOptions: { minValue: 1, maxValue: MAX_TIMEOUT_MINUTES },
					description: `How long one job may take in all: submit, polling and download. More than 0, at most ${MAX_TIMEOUT_MINUTES} (24 hours).`,
				},
				{
					displayName: 'Max Image Size (MB)',
					name: 'maxDownloadMb',
					type: 'number',
					default: 50,
					typeOptions: { minValue: 1, maxValue: MAX_IMAGE_MB },
					description: `A larger download fails the job instead of filling memory. From 1 to ${MAX_IMAGE_MB}.`,
				},
				MAX_NEW_JOBS_OPTION,
			],
		},
	],
};
