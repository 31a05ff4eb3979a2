import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { ConcurrentCollect } from '../../nodes/ConcurrentCollect/ConcurrentCollect.node';
import { FluxConcurrentSubmit } from '../../nodes/FluxConcurrentSubmit/FluxConcurrentSubmit.node';
import { FluxImage } from '../../nodes/FluxImage/FluxImage.node';
import { connect, manualTrigger, runWorkflow, type HarnessNode } from '../engine/harness';
import type { RelaySimulator } from '../../relay-sim';

/** Node types as n8n names them when the package is installed. */
export const TYPES = {
	image: 'n8n-nodes-flux-concurrent.fluxImage',
	submit: 'n8n-nodes-flux-concurrent.fluxConcurrentSubmit',
	collect: 'n8n-nodes-flux-concurrent.concurrentCollect',
} as const;

export const nodeTypes = {
	[TYPES.image]: new FluxImage(),
	[TYPES.submit]: new FluxConcurrentSubmit(),
	[TYPES.collect]: new ConcurrentCollect(),
};

export function fluxCredentials(sim: RelaySimulator, apiStyle: 'relay' | 'bfl' = 'relay') {
	return { fluxApi: { apiStyle, baseUrl: sim.url, apiKey: sim.apiKey } };
}

const credentialRef = { fluxApi: { id: 'cred-1', name: 'FLUX (simulator)' } };

export function submitNode(name: string, parameters: INodeParameters, extra: Partial<HarnessNode> = {}): HarnessNode {
	return { name, type: TYPES.submit, parameters, credentials: credentialRef, ...extra };
}

export function imageNode(name: string, parameters: INodeParameters, extra: Partial<HarnessNode> = {}): HarnessNode {
	return { name, type: TYPES.image, parameters, credentials: credentialRef, ...extra };
}

export function collectNode(name: string, parameters: INodeParameters, extra: Partial<HarnessNode> = {}): HarnessNode {
	return { name, type: TYPES.collect, parameters, ...extra };
}

export function items(...jsons: IDataObject[]): INodeExecutionData[] {
	return jsons.map((json) => ({ json }));
}

/** Waits for a state (test/support/until.ts), for the engine tests that import it from here. */
export { until } from '../support/until';

export interface BatchOptions {
	/** Submit node parameters besides the prompt (`={{ $json.prompt }}`). */
	submit?: INodeParameters;
	collect?: INodeParameters;
	/** Node settings of the submit node, e.g. onError. */
	submitSettings?: Partial<HarnessNode>;
	/** Node settings of the collector, e.g. onError. */
	collectSettings?: Partial<HarnessNode>;
	signal?: AbortSignal;
}

/** Trigger (one item per prompt) → Submit → Collect, the shape most collector tests need. */
export async function runPromptBatch(sim: RelaySimulator, prompts: readonly string[], options: BatchOptions = {}) {
	return await runWorkflow({
		nodes: [
			manualTrigger('Trigger'),
			submitNode('Submit', { prompt: '={{ $json.prompt }}', ...options.submit }, options.submitSettings),
			collectNode('Collect', options.collect ?? {}, options.collectSettings),
		],
		connections: connect(['Trigger', 'Submit'], ['Submit', 'Collect']),
		nodeTypes,
		credentials: fluxCredentials(sim),
		triggerItems: items(...prompts.map((prompt) => ({ prompt }))),
		signal: options.signal,
	});
}
