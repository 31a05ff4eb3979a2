/**
 * The serial FLUX 3 Image node as an AI Agent tool, through n8n's real engine (n8n-core's
 * WorkflowExecute, getInputConnectionData and createNodeAsTool, as in n8n 2.x).
 *
 * How n8n does it (n8n 2.0.3 and 2.41.1 sources): for a node whose description has `usableAsTool`,
 * n8n's NodeTypes serves the extra type `<type>Tool`: a copy of the node with `inputs: []`,
 * `outputs: ['ai_tool']` and a Tool Description parameter (asAiTool below does the same). The AI
 * Agent reads its `ai_tool` input with getInputConnectionData; for a node without `supplyData`,
 * n8n-core wraps it with createNodeAsTool: a LangChain tool whose schema comes from the parameters'
 * `$fromAI(...)` calls. Calling the tool runs the node's own `execute` with the tool arguments as its
 * one input item and answers `JSON.stringify(output[0].map(item => item.json))`: the agent never sees
 * binaries. FakeAgent below stands in for the AI Agent: it calls the tool and outputs what it got.
 */
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { manualTrigger, runWorkflow } from '../engine/harness';
import { readPromptFromPng, type RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { ConcurrentCollect } from '../../nodes/ConcurrentCollect/ConcurrentCollect.node';
import { FluxConcurrentSubmit } from '../../nodes/FluxConcurrentSubmit/FluxConcurrentSubmit.node';
import { FluxImage } from '../../nodes/FluxImage/FluxImage.node';
import { fluxCredentials, TYPES } from './setup';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 20 }, (started) => (sim = started));

const TOOL_TYPE = `${TYPES.image}Tool`;
const AGENT_TYPE = 'test.fakeAgent';

/** What n8n's NodeTypes.getByNameAndVersion serves for `<type>Tool` (n8n 2.x convertNodeToAiTool, reduced). */
function asAiTool(nodeType: INodeType): INodeType {
	const serial = nodeType.description;
	if (!serial.usableAsTool) throw new Error(`${serial.name} is not usable as a tool`);
	const description: INodeTypeDescription = {
		...serial,
		name: `${serial.name}Tool`,
		displayName: `${serial.displayName} Tool`,
		inputs: [],
		outputs: ['ai_tool'],
		usableAsTool: undefined,
		properties: [
			{ displayName: 'Description', name: 'toolDescription', type: 'string', default: serial.description, required: true },
			...serial.properties,
		],
	};
	return Object.create(nodeType, { description: { value: description } }) as INodeType;
}

/** Stands in for the AI Agent: for each input item, calls the connected tool with `{ prompt: json.ask }`. */
class FakeAgent implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Fake Agent',
		name: 'fakeAgent',
		group: ['transform'],
		version: 1,
		description: 'Calls its tool',
		defaults: { name: 'Agent' },
		inputs: ['main', { type: 'ai_tool', displayName: 'Tool' }],
		outputs: ['main'],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const tools = (await this.getInputConnectionData('ai_tool', 0)) as Array<{ name: string; invoke(args: unknown): Promise<unknown> }>;
		const out: INodeExecutionData[] = [];
		for (const [index, item] of this.getInputData().entries()) {
			const tool = tools[0];
			try {
				const answer = await tool.invoke({ prompt: item.json.ask });
				out.push({ json: { tool: tool.name, answer: String(answer) }, pairedItem: { item: index } });
			} catch (error) {
				out.push({ json: { tool: tool.name, error: (error as Error).message }, pairedItem: { item: index } });
			}
		}
		return [out];
	}
}

async function runAgent(asks: string[], toolParameters: Record<string, unknown> = {}) {
	return await runWorkflow({
		nodes: [
			manualTrigger('Trigger'),
			{ name: 'Agent', type: AGENT_TYPE },
			{
				name: 'Make image',
				type: TOOL_TYPE,
				parameters: { prompt: "={{ $fromAI('prompt', 'What the image shows', 'string') }}", ...toolParameters },
			},
		],
		connections: {
			Trigger: { main: [[{ node: 'Agent', type: 'main', index: 0 }]] },
			'Make image': { ai_tool: [[{ node: 'Agent', type: 'ai_tool', index: 0 }]] },
		},
		nodeTypes: { [AGENT_TYPE]: new FakeAgent(), [TOOL_TYPE]: asAiTool(new FluxImage()) },
		credentials: fluxCredentials(sim),
		triggerItems: asks.map((ask) => ({ json: { ask } })),
	});
}

describe('FLUX 3 Image as an AI Agent tool', () => {
	it('is a tool; its concurrent twin and the collector are not', () => {
		expect(new FluxImage().description.usableAsTool).toBe(true);
		expect(new FluxConcurrentSubmit().description.usableAsTool).toBeFalsy();
		expect(new ConcurrentCollect().description.usableAsTool).toBeFalsy();
	});

	it('the agent gets JSON it can use: status, prompt, file name, type, size and task id', async () => {
		const run = await runAgent(['a lighthouse at dusk']);
		expect(run.status).toBe('success');
		const [{ json }] = run.outputOf('Agent');
		expect(json.error).toBeUndefined();
		expect(typeof json.tool).toBe('string'); // the tool's name as the model sees it
		const answer = JSON.parse(String(json.answer)) as Array<Record<string, unknown>>;
		expect(answer).toHaveLength(1);
		expect(answer[0]).toMatchObject({
			status: 'success',
			prompt: 'a lighthouse at dusk',
			mimeType: 'image/png',
			binaryProperty: 'data',
			cached: false,
		});
		expect(answer[0].fileName).toMatch(/^flux-.+\.png$/);
		expect(sim.log.tasks.has(String(answer[0].taskId))).toBe(true);
		// The size is the real image's, in bytes: the simulator's image of this prompt.
		expect(sim.log.submits.map((submit) => submit.prompt)).toEqual(['a lighthouse at dusk']);
		expect(answer[0].fileSize).toBeGreaterThan(100);
		expect(JSON.stringify(answer)).not.toContain(sim.apiKey);
	});

	it('asked twice for the same image in one execution, the tool makes two (the 1st and 2nd occurrence); a re-run of the execution gets the same two', async () => {
		const taskIds = (run: Awaited<ReturnType<typeof runAgent>>) =>
			run.outputOf('Agent').map((item) => (JSON.parse(String(item.json.answer)) as Array<{ taskId?: string; cached?: boolean }>)[0]);
		const first = taskIds(await runAgent(['a blue heron', 'a blue heron']));
		expect(new Set(first.map((answer) => answer.taskId)).size).toBe(2);
		expect(sim.log.submits).toHaveLength(2);
		const again = taskIds(await runAgent(['a blue heron', 'a blue heron']));
		expect(again.map((answer) => [answer.taskId, answer.cached])).toEqual(first.map((answer) => [answer.taskId, true]));
		expect(sim.log.submits).toHaveLength(2);
	});

	it('the image itself stays on the tool node’s item (n8n drops it from what the agent reads)', async () => {
		const run = await runAgent(['a red kite']);
		const answer = JSON.parse(String(run.outputOf('Agent')[0].json.answer)) as Array<Record<string, unknown>>;
		// n8n records the tool run as { response } on its ai_tool output: the JSON above, no binary.
		const toolRun = run.taskData('Make image');
		const recorded = toolRun.data?.ai_tool?.[0]?.[0]?.json as { response?: unknown } | undefined;
		expect(recorded?.response).toEqual(answer);
		// The node's own output still had the image: run it the same way and read it back.
		const image = await runImageDirectly('a red kite');
		expect(readPromptFromPng(image.buffer)).toBe('a red kite');
		expect(image.size).toBe(answer[0].fileSize);
	});

	it('a failed generation reaches the agent as an error message without the API key', async () => {
		sim.setFault('refused', { on: 'submit', status: 422, body: { detail: 'prompt refused by moderation' } });
		const run = await runAgent(['a refused prompt']);
		const [{ json }] = run.outputOf('Agent');
		expect(String(json.error)).toMatch(/refused|422|moderat/i);
		expect(JSON.stringify(run.data)).not.toContain(sim.apiKey);
	});

	it('with Skip Error the agent is told the status and the (redacted) reason', async () => {
		sim.setFault('refused', { on: 'submit', status: 422, body: { detail: 'prompt refused by moderation' } });
		const run = await runAgent(['another refused prompt'], { skipError: true });
		const answer = JSON.parse(String(run.outputOf('Agent')[0].json.answer)) as Array<Record<string, unknown>>;
		expect(answer[0]).toMatchObject({ status: 'skipped_error', prompt: 'another refused prompt' });
		expect(String(answer[0].error)).toMatch(/refused|422|moderat/i);
	});
});

/** The serial node (not as a tool) on the same prompt with Cache: Reuse: the stored image, read back. */
async function runImageDirectly(prompt: string): Promise<{ buffer: Buffer; size: number }> {
	const run = await runWorkflow({
		nodes: [manualTrigger('Trigger'), { name: 'FLUX', type: TYPES.image, parameters: { prompt } }],
		connections: { Trigger: { main: [[{ node: 'FLUX', type: 'main', index: 0 }]] } },
		nodeTypes: { [TYPES.image]: new FluxImage() },
		credentials: fluxCredentials(sim),
	});
	const [item] = run.outputOf('FLUX');
	expect(item.json).toMatchObject({ cached: true });
	const buffer = await run.binaryBuffer(item);
	return { buffer, size: buffer.length };
}
