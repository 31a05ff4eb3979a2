import { NodeConnectionTypes, type INodeTypeDescription } from 'n8n-workflow';

import { fluxNodeProperties } from '../../src/fluxN8n/fluxParameters';

/**
 * The FLUX 3 Video node's description: its parameters are FLUX 3 Video's declarations (src/models/flux3Video.ts;
 * each shows only in the modes that take it) and the node's own. Its concurrent twin is generated from this object.
 */
export const fluxVideoDescription: INodeTypeDescription = {
	displayName: 'FLUX 3 Video',
	name: 'fluxVideo',
	icon: 'file:fluxVideo.svg',
	group: ['transform'],
	version: 1,
	subtitle: '={{$parameter["mode"] === "draft_enhance" ? "draft_enhance" : $parameter["mode"] + " · " + $parameter["resolution"] + ($parameter["draft"] ? " · draft" : "")}}',
	description: 'Generate a video clip with FLUX 3 Video: from text, from keyframes, continuing a clip, or enhancing a draft (one item at a time)',
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
	properties: fluxNodeProperties('video'),
};
