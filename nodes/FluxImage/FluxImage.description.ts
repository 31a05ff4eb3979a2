import { NodeConnectionTypes, type INodeTypeDescription } from 'n8n-workflow';

import { ASPECT_RATIOS, RESOLUTIONS } from '../../src/flux/options';
import { MAX_IMAGE_MB, MAX_TIMEOUT_MINUTES } from '../../src/fluxN8n/fluxParameters';
import { MAX_NEW_JOBS_OPTION } from '../../src/fluxN8n/maxNewJobsOption';

/**
 * What each Resolution means (BFL's FLUX 3 Image tiers). BFL's reference names the tiers and prices each image
 * by tier; the pixel counts are the tiers' names read as the side of a square (768sq: 768 × 768; 1k: 1024 × 1024 …).
 */
const RESOLUTION_HELP: Record<(typeof RESOLUTIONS)[number], string> = {
	'768sq': 'About 768 × 768 pixels (0.6 megapixels): the cheapest, for drafts and thumbnails',
	'1k': 'About 1 megapixel (1024 × 1024 at 1:1): the API default',
	'1.5k': 'About 2.4 megapixels (1536 × 1536 at 1:1)',
	'2k': 'About 4 megapixels (2048 × 2048 at 1:1)',
	'4k': 'About 16 megapixels (4096 × 4096 at 1:1): the most expensive; can take several minutes',
};

/** The shapes, as width : height. */
const ASPECT_RATIO_HELP: Record<(typeof ASPECT_RATIOS)[number], string> = {
	auto: 'The shape of the first reference image; a square without one',
	'21:9': 'Ultra-wide landscape (cinema)',
	'16:9': 'Wide landscape (video, slides)',
	'3:2': 'Landscape (classic photo)',
	'4:3': 'Landscape (classic screen)',
	'5:4': 'Nearly square, landscape',
	'1:1': 'Square',
	'4:5': 'Nearly square, portrait (social feed)',
	'3:4': 'Portrait',
	'2:3': 'Portrait (classic photo)',
	'9:16': 'Tall portrait (phone screen, stories)',
	'9:21': 'Ultra-tall portrait',
};

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
			options: RESOLUTIONS.map((value) => ({ name: value, value, description: RESOLUTION_HELP[value] })),
			description:
				'How many pixels the image has: about 768 × 768 (768sq), 1 megapixel (1k, e.g. 1024 × 1024 at 1:1), 2.4 MP (1.5k), 4 MP (2k) or 16 MP (4k). Aspect Ratio sets the shape. BFL prices each image by this tier; 4k can take several minutes.',
		},
		{
			displayName: 'Aspect Ratio',
			name: 'aspectRatio',
			type: 'options',
			default: 'auto',
			options: ASPECT_RATIOS.map((value) => ({ name: value, value, description: ASPECT_RATIO_HELP[value] })),
			description:
				'Width : height of the image. Auto takes the shape of the first reference image, or makes a square when there is none.',
		},
		{
			displayName: 'Grounding',
			name: 'grounding',
			type: 'boolean',
			default: true,
			description:
				'Whether the model may look the prompt up (web and image search) before generating, so that real products, places and current events come out right. It can take longer; BFL lists no separate price for it (an image is priced by its Resolution).',
		},
		{
			displayName: 'Safety Tolerance',
			name: 'safetyTolerance',
			type: 'number',
			default: 2,
			typeOptions: { minValue: 0, maxValue: 4, numberPrecision: 0 },
			description:
				'How strictly the prompt, the reference images and the result are moderated: a whole number from 0 (strictest) to 4 (most permissive), default 2. A refused job ends with status Request Moderated or Content Moderated.',
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
			displayName: 'Seed (Cache Key)',
			name: 'seed',
			type: 'number',
			default: 0,
			typeOptions: { numberPrecision: 0 },
			description:
				'FLUX 3 Image takes no seed, so this number is never sent to the API: it is the key of the stored results. The same seed with the same inputs returns the stored image (no new paid job); another seed makes a new image. For a new image on every run, set it to an expression such as {{ $now.toMillis() }}, or set Options → Cache to Refresh.',
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
