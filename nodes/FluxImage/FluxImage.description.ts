import { NodeConnectionTypes, type INodeTypeDescription } from 'n8n-workflow';

import { fluxNodeProperties } from '../../src/fluxN8n/fluxParameters';

/**
 * The FLUX image node's description: its parameters are the image models' declarations (src/models; a registered
 * model appears with no edit here) and the node's own. The concurrent twin is generated from this object (src/twin).
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
	properties: fluxNodeProperties('image'),
};
