/**
 * The workflows the editor test (test/e2e/nodesPanel.test.ts) and the README's screenshots (scripts/screenshot.ts)
 * open in the real editor: a trigger and a Concurrent Submit to search the nodes panel from, and a Placeholder batch
 * whose middle prompt the simulator refuses (a `refused` fault on the prompt text REFUSED_MARK).
 */
import type { EditorWorkflow } from './n8n/editorBrowser';

/** The FLUX credential as a node names it. */
export interface CredentialRef {
	id: string;
	name: string;
}

/** Prompts containing this are refused by the simulator fault the scenes set (`sim.setFault(REFUSED_MARK, …)`). */
export const REFUSED_MARK = 'refused';

const trigger = { id: 'b0c1d2e3-0000-4000-8000-000000000001', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} };

const submit = (credential: CredentialRef, position: [number, number], prompt: string) => ({
	id: 'b0c1d2e3-0000-4000-8000-000000000002',
	name: 'Submit',
	type: 'n8n-nodes-flux-concurrent.fluxConcurrentSubmit',
	typeVersion: 1,
	position,
	parameters: { prompt },
	credentials: { fluxApi: credential },
});

/** Start → Submit: where a user searches the nodes panel and adds the collector from Submit's "+". */
export function findTheNodesWorkflow(credential: CredentialRef): EditorWorkflow {
	return {
		name: 'Find the FLUX nodes',
		nodes: [trigger, submit(credential, [300, 0], 'a red fox in the snow')],
		connections: { Start: { main: [[{ node: 'Submit', type: 'main', index: 0 }]] } },
	};
}

/** Start → Submit with no credential yet: where a user creates the FLUX API credential. */
export function newCredentialWorkflow(): EditorWorkflow {
	const { credentials: _none, ...node } = submit({ id: '', name: '' }, [300, 0], 'a red fox in the snow');
	return {
		name: 'A new FLUX credential',
		nodes: [trigger, node],
		connections: { Start: { main: [[{ node: 'Submit', type: 'main', index: 0 }]] } },
	};
}

/** The three prompts of the failed-slot batch; the second one is refused. */
export const FAILED_SLOT_PROMPTS = ['a heron at dawn', `${REFUSED_MARK}: a forbidden picture`, 'a kettle on a stove'];

/** Start → Prompts (three items) → Submit → Collect in Placeholder mode: one slot fails, the batch completes. */
export function failedSlotWorkflow(credential: CredentialRef): EditorWorkflow {
	return {
		name: 'A batch with a refused slot',
		nodes: [
			trigger,
			{
				id: 'b0c1d2e3-0000-4000-8000-000000000003',
				name: 'Prompts',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [250, 0],
				parameters: { jsCode: `return ${JSON.stringify(FAILED_SLOT_PROMPTS)}.map((prompt) => ({ json: { prompt } }));` },
			},
			submit(credential, [500, 0], '={{ $json.prompt }}'),
			{
				id: 'b0c1d2e3-0000-4000-8000-000000000004',
				name: 'Collect',
				type: 'n8n-nodes-flux-concurrent.concurrentCollect',
				typeVersion: 1,
				position: [750, 0],
				parameters: { failureMode: 'placeholder' },
			},
		],
		connections: {
			Start: { main: [[{ node: 'Prompts', type: 'main', index: 0 }]] },
			Prompts: { main: [[{ node: 'Submit', type: 'main', index: 0 }]] },
			Submit: { main: [[{ node: 'Collect', type: 'main', index: 0 }]] },
		},
	};
}
