/**
 * Occurrence per execution through n8n's real engine: identical rows fed in batches by a Loop Over Items node
 * (its v3 logic below, as n8n-nodes-base's SplitInBatchesV3 runs it: the node keeps the rest of the items in its
 * node context and is run again for each batch), or identical requests in two FLUX nodes of one workflow, are
 * as many jobs as rows (the n-th identical request of the execution is the n-th job), and a re-run (a new
 * execution) returns the same images, slot for slot, from the store.
 */
import '../engine/harness'; // first: it prepares jest to load n8n-core
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription, IPairedItemData } from 'n8n-workflow';

import { connect, manualTrigger, runWorkflow, type EngineRun, type HarnessNode } from '../engine/harness';
import { readPngText, type RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { collectNode, fluxCredentials, imageNode, items, nodeTypes, submitNode } from './setup';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 20, imageSize: { width: 8, height: 8 } }, (started) => (sim = started));

const LOOP_TYPE = 'test.loopOverItems';

/** Loop Over Items (Split in Batches v3) as n8n-nodes-base runs it, without its pairedItem bookkeeping. */
class LoopOverItems implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Loop Over Items',
		name: 'loopOverItems',
		group: ['organization'],
		version: 3,
		description: 'Split data into batches and iterate over each batch',
		defaults: { name: 'Loop Over Items' },
		inputs: ['main'],
		outputs: ['main', 'main'],
		outputNames: ['done', 'loop'],
		properties: [{ displayName: 'Batch Size', name: 'batchSize', type: 'number', default: 1 }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const input = this.getInputData().slice();
		const context = this.getContext('node') as IDataObject & { items?: INodeExecutionData[]; processed?: INodeExecutionData[] };
		const size = this.getNodeParameter('batchSize', 0) as number;
		let batch: INodeExecutionData[];
		if (context.items === undefined) {
			batch = input.splice(0, size);
			context.items = input;
			context.processed = [];
		} else {
			context.processed = [...(context.processed ?? []), ...input];
			batch = context.items.splice(0, size);
		}
		if (batch.length === 0) return [context.processed ?? [], []];
		return [[], batch.map((item, index) => ({ ...item, pairedItem: { item: index } as IPairedItemData }))];
	}
}

const loopTypes = { ...nodeTypes, [LOOP_TYPE]: new LoopOverItems() };
const PROMPT = 'a paper crane';

/** Trigger (12 identical rows) → Loop (batches of 6) → `body` → back to the loop. */
async function runLoop(body: HarnessNode[], last: string): Promise<EngineRun> {
	const first = body[0].name;
	return await runWorkflow({
		nodes: [manualTrigger('Trigger'), { name: 'Loop', type: LOOP_TYPE, parameters: { batchSize: 6 } }, ...body],
		connections: {
			...connect(['Trigger', 'Loop'], ...body.slice(1).map((node, i): [string, string] => [body[i].name, node.name]), [last, 'Loop']),
			Loop: { main: [[], [{ node: first, type: 'main', index: 0 }]] },
		},
		nodeTypes: loopTypes,
		credentials: fluxCredentials(sim),
		triggerItems: items(...Array.from({ length: 12 }, () => ({ prompt: PROMPT }))),
	});
}

/** Every image of the node's runs (run 0 = the first batch), as [task id, cached]. */
async function imagesOf(run: EngineRun, node: string): Promise<Array<[string | undefined, unknown]>> {
	const out: Array<[string | undefined, unknown]> = [];
	for (let runIndex = 0; run.runData[node]?.[runIndex] !== undefined; runIndex++) {
		for (const item of run.outputOf(node, 0, runIndex)) out.push([readPngText(await run.binaryBuffer(item, 'data')).task, item.json.cached]);
	}
	return out;
}

describe('Loop Over Items: 12 identical rows in batches of 6', () => {
	it('Submit → Collect in the loop: 12 jobs, 12 different images; a re-run returns the same 12, slot for slot, from the store', async () => {
		const body = [submitNode('Submit', { prompt: '={{ $json.prompt }}', seed: 5 }), collectNode('Collect', {})];
		const first = await runLoop(body, 'Collect');
		expect(first.status).toBe('success');
		const images = await imagesOf(first, 'Collect');
		expect(images).toHaveLength(12);
		expect(new Set(images.map(([task]) => task)).size).toBe(12);
		expect(images.map(([, cached]) => cached)).toEqual(Array(12).fill(false));
		expect(sim.log.submits).toHaveLength(12);

		const again = await runLoop(body, 'Collect');
		expect(await imagesOf(again, 'Collect')).toEqual(images.map(([task]) => [task, true]));
		expect(sim.log.submits).toHaveLength(12);
	});

	it('the serial node in the loop: 12 jobs; a re-run returns the same 12 in order', async () => {
		const body = [imageNode('Image', { prompt: '={{ $json.prompt }}', seed: 6 })];
		const first = await runLoop(body, 'Image');
		const images = await imagesOf(first, 'Image');
		expect(new Set(images.map(([task]) => task)).size).toBe(12);
		expect(sim.log.submits).toHaveLength(12);
		const again = await runLoop(body, 'Image');
		expect(await imagesOf(again, 'Image')).toEqual(images.map(([task]) => [task, true]));
		expect(sim.log.submits).toHaveLength(12);
	});
});

it('the same request in two FLUX nodes of one execution is two jobs (the 1st and 2nd occurrence); a re-run returns both', async () => {
	const nodes = [
		manualTrigger('Trigger'),
		imageNode('First', { prompt: PROMPT, seed: 7 }),
		submitNode('Second', { prompt: PROMPT, seed: 7 }),
		collectNode('Collect', {}),
	];
	const run = () =>
		runWorkflow({
			nodes,
			connections: connect(['Trigger', 'First'], ['First', 'Second'], ['Second', 'Collect']),
			nodeTypes,
			credentials: fluxCredentials(sim),
			triggerItems: items({}),
		});
	const first = await run();
	const tasks = [...(await imagesOf(first, 'First')), ...(await imagesOf(first, 'Collect'))].map(([task]) => task);
	expect(new Set(tasks).size).toBe(2);
	expect(sim.log.submits).toHaveLength(2);
	const again = await run();
	expect([...(await imagesOf(again, 'First')), ...(await imagesOf(again, 'Collect'))]).toEqual(tasks.map((task) => [task, true]));
});
