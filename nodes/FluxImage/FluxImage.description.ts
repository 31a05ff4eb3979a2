import { NodeConnectionTypes, type INodeTypeDescription } from 'n8n-workflow';

import { ASPECT_RATIOS, RESOLUTIONS } from '../../src/flux/options';
import { MAX_IMAGE_MB, MAX_TIMEOUT_MINUTES } from '../../src/fluxN8n/fluxParameters';
import { MAX_NEW_JOBS_OPTION } from '../../src/fluxN8n/maxNewJobsOption';

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
	subtitle: '={{$parameter["resolution"] + " · " + $parameter["aspectRatio"]}}',
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
		},
	],
	properties: [
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
		{
			displayName: 'Resolution',
			name: 'resolution',
			type: 'options',
			default: '1k',
			options: RESOLUTIONS.map((value) => ({ name: value, value })),
		},
		{
			displayName: 'Aspect Ratio',
			name: 'aspectRatio',
			type: 'options',
			default: 'auto',
			options: ASPECT_RATIOS.map((value) => ({ name: value, value })),
		},
		{
			displayName: 'Grounding',
			name: 'grounding',
			type: 'boolean',
			default: true,
			description: 'Whether to let the model ground the prompt (search) before generating',
		},
		{
			displayName: 'Safety Tolerance',
			name: 'safetyTolerance',
			type: 'number',
			default: 2,
			typeOptions: { minValue: 0, maxValue: 4, numberPrecision: 0 },
			description: '0 is the strictest moderation, 4 the most permissive',
		},
		{
			displayName: 'Reference Images',
			name: 'referenceImages',
			type: 'fixedCollection',
			placeholder: 'Add Reference Image',
			typeOptions: { multipleValues: true, multipleValueButtonText: 'Add Reference Image' },
			default: {},
			description: 'Up to ten images to edit or take style from, in this order',
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
			displayName: 'Seed',
			name: 'seed',
			type: 'number',
			default: 0,
			typeOptions: { numberPrecision: 0 },
			description:
				'A cache seed: identical inputs with the same seed reuse the stored earlier result instead of paying for a new job. It is never sent to the API. For a new image on every run, set it to an expression such as {{ $now.toMillis() }}, or set Options → Cache to Refresh.',
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
