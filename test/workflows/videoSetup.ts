/** Node types and builders for the FLUX 3 Video engine tests. */
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { ConcurrentCollectVideos } from '../../nodes/ConcurrentCollectVideos/ConcurrentCollectVideos.node';
import { FluxVideo } from '../../nodes/FluxVideo/FluxVideo.node';
import { FluxVideoConcurrentSubmit } from '../../nodes/FluxVideoConcurrentSubmit/FluxVideoConcurrentSubmit.node';
import type { RelaySimulator } from '../../relay-sim';
import { connect, manualTrigger, runWorkflow, type HarnessNode } from '../engine/harness';
import { fluxCredentials, items, nodeTypes as imageNodeTypes, TYPES as IMAGE_TYPES } from './setup';

export const VIDEO_TYPES = {
	video: 'n8n-nodes-flux-concurrent.fluxVideo',
	submit: 'n8n-nodes-flux-concurrent.fluxVideoConcurrentSubmit',
	collect: 'n8n-nodes-flux-concurrent.concurrentCollectVideos',
} as const;

export const videoNodeTypes = {
	...imageNodeTypes,
	[VIDEO_TYPES.video]: new FluxVideo(),
	[VIDEO_TYPES.submit]: new FluxVideoConcurrentSubmit(),
	[VIDEO_TYPES.collect]: new ConcurrentCollectVideos(),
};

export { IMAGE_TYPES };

const credentialRef = { fluxApi: { id: 'cred-1', name: 'FLUX (simulator)' } };

export const videoNode = (name: string, parameters: INodeParameters, extra: Partial<HarnessNode> = {}): HarnessNode => ({
	name,
	type: VIDEO_TYPES.video,
	parameters,
	credentials: credentialRef,
	...extra,
});

export const videoSubmitNode = (name: string, parameters: INodeParameters, extra: Partial<HarnessNode> = {}): HarnessNode => ({
	name,
	type: VIDEO_TYPES.submit,
	parameters,
	credentials: credentialRef,
	...extra,
});

export const videoCollectNode = (name: string, parameters: INodeParameters, extra: Partial<HarnessNode> = {}): HarnessNode => ({
	name,
	type: VIDEO_TYPES.collect,
	parameters,
	...extra,
});

/** Trigger → FLUX 3 Video (serial). */
export async function runSerialVideo(sim: RelaySimulator, parameters: INodeParameters, triggerItems: INodeExecutionData[], extra: Partial<HarnessNode> = {}, style: 'relay' | 'bfl' = 'relay') {
	return await runWorkflow({
		nodes: [manualTrigger('Trigger'), videoNode('Video', parameters, extra)],
		connections: connect(['Trigger', 'Video']),
		nodeTypes: videoNodeTypes,
		credentials: fluxCredentials(sim, style),
		triggerItems,
	});
}

/** Trigger → Video Submit → Collect Videos. */
export async function runVideoBatch(
	sim: RelaySimulator,
	prompts: readonly string[],
	options: { submit?: INodeParameters; collect?: INodeParameters; collectSettings?: Partial<HarnessNode>; signal?: AbortSignal } = {},
) {
	return await runWorkflow({
		nodes: [
			manualTrigger('Trigger'),
			videoSubmitNode('Submit', { prompt: '={{ $json.prompt }}', ...options.submit }),
			videoCollectNode('Collect', options.collect ?? {}, options.collectSettings),
		],
		connections: connect(['Trigger', 'Submit'], ['Submit', 'Collect']),
		nodeTypes: videoNodeTypes,
		credentials: fluxCredentials(sim),
		triggerItems: items(...prompts.map((prompt) => ({ prompt }))),
		signal: options.signal,
	});
}
