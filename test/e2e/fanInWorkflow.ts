/** The workflow the store e2e tests run: Start → one Submit per prompt → Collect (one input each) → write every image. */
import type { N8nHome, WorkflowJson } from '../../scripts/n8n';

export interface FanInWorkflowOptions {
	name: string;
	prompts: readonly string[];
	seed: number;
	/** Folder the Write node writes each slot's image into (by its file name). */
	folder: string;
	home: N8nHome;
	/** The imported FLUX API credential, set on every Submit node. */
	credential: { id: string; name: string };
	/** Set the credential on the collector too (it re-attaches with it after a restart). */
	collectorCredential?: boolean;
	settings?: Record<string, unknown>;
}

export function fanInWorkflow(o: FanInWorkflowOptions): WorkflowJson {
	const fluxApi = { fluxApi: o.credential };
	const submits = o.prompts.map((prompt, i) => ({
		id: `submit-${i + 1}`,
		name: `Submit ${i + 1}`,
		type: o.home.nodeType('fluxConcurrentSubmit'),
		typeVersion: 1,
		position: [240, i * 160],
		parameters: { prompt, seed: o.seed },
		credentials: fluxApi,
	}));
	return {
		name: o.name,
		active: false,
		nodes: [
			{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			...submits,
			{
				id: 'collect',
				name: 'Collect',
				type: o.home.nodeType('concurrentCollect'),
				typeVersion: 1,
				position: [480, 0],
				parameters: { numberInputs: o.prompts.length },
				...(o.collectorCredential ? { credentials: fluxApi } : {}),
			},
			{
				id: 'write',
				name: 'Write Images',
				type: 'n8n-nodes-base.readWriteFile',
				typeVersion: 1,
				position: [720, 0],
				parameters: { operation: 'write', fileName: `=${o.folder}/{{ $binary.data.fileName }}`, dataPropertyName: 'data', options: {} },
			},
		],
		connections: {
			Start: { main: [submits.map((s) => ({ node: s.name, type: 'main', index: 0 }))] },
			...Object.fromEntries(submits.map((s, i) => [s.name, { main: [[{ node: 'Collect', type: 'main', index: i }]] }])),
			Collect: { main: [[{ node: 'Write Images', type: 'main', index: 0 }]] },
		},
		...(o.settings ? { settings: o.settings } : {}),
	};
}
