import { NodeConnectionTypes, type INodeTypeDescription } from 'n8n-workflow';

import { MAX_VIDEO_SECONDS, MIN_VIDEO_SECONDS, VIDEO_ASPECT_RATIOS } from '../../src/flux/videoOptions';
import { MAX_TIMEOUT_MINUTES } from '../../src/parameters/fieldSchemas';
import { MAX_NEW_JOBS_OPTION } from '../../src/fluxN8n/maxNewJobsOption';
import { DEFAULT_MAX_VIDEO_MB, DEFAULT_VIDEO_TIMEOUT_MINUTES, MAX_VIDEO_MB } from '../../src/fluxVideoN8n/videoParameters';

/**
 * The FLUX 3 Video node's description. Its concurrent twin is generated from this object (src/twin), so a
 * parameter added here appears there too. Mode-specific fields show only in their mode.
 */
export const fluxVideoDescription: INodeTypeDescription = {
	displayName: 'FLUX 3 Video',
	name: 'fluxVideo',
	icon: 'file:fluxVideo.svg',
	group: ['transform'],
	version: 1,
	subtitle: '={{$parameter["mode"] + " · " + $parameter["resolution"]}}',
	description: 'Generate a video clip with FLUX 3 Video: from text, from keyframes, or continuing a clip (one item at a time)',
	defaults: { name: 'FLUX 3 Video' },
	// Not an AI-agent tool: a clip takes minutes and an agent drops binary tool output.
	usableAsTool: undefined,
	inputs: [NodeConnectionTypes.Main],
	outputs: [NodeConnectionTypes.Main],
	credentials: [{ name: 'fluxApi', required: true, testedBy: 'fluxApiTest' }],
	hints: [
		{
			message:
				'Identical inputs with the same Seed reuse the stored clip (no new paid job). For a new clip on every run, set Seed to an expression such as {{ $now.toMillis() }}, or set Options → Cache to Refresh.',
			type: 'info',
			location: 'outputPane',
			whenToDisplay: 'afterExecution',
			// Only while Cache is Reuse (the default): with Refresh or Off nothing is reused, and the hint would mislead.
			displayCondition: '={{ !["refresh", "off"].includes(($parameter["options"] || {})["cache"]) }}',
		},
	],
	properties: [
		{
			displayName: 'Mode',
			name: 'mode',
			type: 'options',
			noDataExpression: true,
			default: 't2v',
			options: [
				{ name: 'Text to Video', value: 't2v', description: 'A clip from the prompt alone' },
				{ name: 'Image to Video', value: 'i2v', description: 'A clip through 1–10 keyframe images' },
				{ name: 'Continue a Video', value: 'v2v', description: 'A clip that continues a start video' },
			],
			description: 'What the clip starts from: the prompt alone, keyframe images, or a clip to continue',
		},
		{
			displayName: 'Prompt',
			name: 'prompt',
			type: 'string',
			typeOptions: { rows: 4 },
			default: '',
			required: true,
			placeholder: 'A slow orbit around a ceramic mug on oak, steam rising, soft window light',
			description: 'What happens in the clip (at most 20,480 characters)',
		},
		{
			displayName: 'Keyframes',
			name: 'keyframes',
			type: 'fixedCollection',
			placeholder: 'Add Keyframe',
			typeOptions: { multipleValues: true, multipleValueButtonText: 'Add Keyframe' },
			default: {},
			displayOptions: { show: { mode: ['i2v'] } },
			description:
				'1 image: the opening frame; 2: opening and closing; 3–10: waypoints in order (set a numeric Duration). With timestamps on every keyframe they are pinned at those seconds.',
			options: [
				{
					displayName: 'Keyframe',
					name: 'frames',
					values: [
						{
							displayName: 'Binary Property or URL',
							name: 'source',
							type: 'string',
							default: '',
							placeholder: 'data',
							description: 'The name of a binary property on the input item (e.g. data), or an http(s) URL of a PNG, JPEG or WebP image (at most 20 MB)',
						},
						{
							displayName: 'Timestamp (Seconds)',
							name: 'seconds',
							type: 'string',
							default: '',
							placeholder: '2.5',
							description: 'Optional: where the keyframe is pinned. Set on all keyframes or none; increasing, at least 1/24 s apart, within Duration.',
						},
					],
				},
			],
		},
		{
			displayName: 'Start Video',
			name: 'startVideo',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'data',
			displayOptions: { show: { mode: ['v2v'] } },
			description: 'The clip to continue: the name of a binary property on the input item, or an http(s) URL of an MP4 (at most 50 MB)',
		},
		{
			displayName: 'Aspect Ratio',
			name: 'aspectRatio',
			type: 'options',
			default: 'auto',
			options: VIDEO_ASPECT_RATIOS.map((value) => ({ name: value, value })),
			description: 'Width : height of the clip, e.g. 16:9 landscape, 9:16 phone portrait. Auto leaves the shape to the API.',
		},
		{
			displayName: 'Resolution',
			name: 'resolution',
			type: 'options',
			default: 'hd',
			options: [
				{ name: 'HD (720p)', value: 'hd' },
				{ name: 'Full HD (1080p)', value: 'fhd' },
			],
			description: 'HD: 720 pixels on the shorter side; Full HD: 1080',
		},
		{
			displayName: 'Duration',
			name: 'duration',
			type: 'string',
			default: 'auto',
			placeholder: 'auto',
			description: `Auto, or a whole number of seconds from ${MIN_VIDEO_SECONDS} to ${MAX_VIDEO_SECONDS}`,
		},
		{
			displayName: 'Generate Audio',
			name: 'generateAudio',
			type: 'boolean',
			default: true,
			description: 'Whether to generate synchronized audio with the clip',
		},
		{
			displayName: 'Skip Error',
			name: 'skipError',
			type: 'boolean',
			default: false,
			description: 'Whether to return an item with status skipped_error and the reason (and no clip) instead of failing when generation fails',
		},
		{
			displayName: 'Seed (Cache Key)',
			name: 'seed',
			type: 'number',
			default: 0,
			typeOptions: { numberPrecision: 0 },
			description:
				'This number is never sent to the API: it is the key of the stored results. The same seed with the same inputs returns the stored clip (no new paid job); another seed makes a new clip. For a new clip on every run, set it to an expression such as {{ $now.toMillis() }}, or set Options → Cache to Refresh.',
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
						{ name: 'Reuse', value: 'reuse', description: 'Identical inputs with the same Seed return the stored clip; an unfinished earlier job is re-attached' },
						{ name: 'Refresh', value: 'refresh', description: 'Always send a new (paid) job; its clip replaces the stored one' },
						{ name: 'Off', value: 'off', description: 'Neither read nor write stored clips (an unfinished earlier job is still re-attached)' },
					],
					description: 'Whether to reuse stored clips. For a new clip on every run choose Refresh, or set Seed to an expression such as {{ $now.toMillis() }}.',
				},
				{
					displayName: 'Timeout (Minutes)',
					name: 'timeoutMinutes',
					type: 'number',
					default: DEFAULT_VIDEO_TIMEOUT_MINUTES,
					typeOptions: { minValue: 1, maxValue: MAX_TIMEOUT_MINUTES },
					description: `How long one job may take in all: submit, polling and download. More than 0, at most ${MAX_TIMEOUT_MINUTES} (24 hours).`,
				},
				{
					displayName: 'Max Video Size (MB)',
					name: 'maxDownloadMb',
					type: 'number',
					default: DEFAULT_MAX_VIDEO_MB,
					typeOptions: { minValue: 1, maxValue: MAX_VIDEO_MB },
					description: `A larger clip fails the job. Clips stream to disk, not memory. More than 0, at most ${MAX_VIDEO_MB}.`,
				},
				MAX_NEW_JOBS_OPTION,
			],
		},
	],
};
