/**
 * Cancel-listener hygiene through n8n's real engine: a Loop-Over-Items style execution
 * of 600 submit → collect rounds adds at most ONE abort listener to the
 * execution's cancel signal, never touches n8n's listener limit, and prints no
 * MaxListenersExceededWarning.
 */
import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import { getEventListeners, getMaxListeners } from 'node:events';
import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import { ConcurrentCollect } from '../../nodes/ConcurrentCollect/ConcurrentCollect.node';
import { solidPng } from '../../relay-sim/pngCodec';
import { poolFor } from '../../src/pool';
import type { JobResult as ImageJobResult } from '../../src/fluxN8n/jobResult';
import { makeConcurrentTwin } from '../../src/twin/makeConcurrentTwin';
import type { ConcurrentSource } from '../../src/twin/concurrentSource';

const ROUNDS = 600;

/**
 * The execution's signal as nodes see it, and the most abort listeners seen on it: `most` between a collector's
 * waits (the loop, the submit node returning), `mostWhileCollecting` inside the jobs, which run while the round's
 * collector waits (a job's work starts after the submit node has returned). A waiting collector listens on the
 * signal itself for as long as it waits (src/collect/waitForSlots.ts; the same before the jobs started later).
 */
const seen = { signal: undefined as AbortSignal | undefined, baseline: 0, most: 0, mostWhileCollecting: 0, maxListenersAtStart: 0 };
function sample(): void {
	if (seen.signal) seen.most = Math.max(seen.most, getEventListeners(seen.signal, 'abort').length);
}
function sampleWhileCollecting(): void {
	if (seen.signal) seen.mostWhileCollecting = Math.max(seen.mostWhileCollecting, getEventListeners(seen.signal, 'abort').length);
}

const bareDescription = (name: string, outputs: number): INodeTypeDescription => ({
	displayName: name,
	name,
	group: ['transform'],
	version: 1,
	description: name,
	defaults: { name },
	inputs: [NodeConnectionTypes.Main],
	outputs: Array.from({ length: outputs }, () => NodeConnectionTypes.Main),
	properties: [],
});

/** A Loop Over Items stand-in (n8n-nodes-base is not installed): `loop` output ROUNDS times, then `done`. */
class Loop implements INodeType {
	description = { ...bareDescription('loop', 2), outputNames: ['done', 'loop'] };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const context = this.getContext('node');
		const round = ((context.round as number | undefined) ?? 0) + 1;
		context.round = round;
		if (round === 1) {
			seen.signal = this.getExecutionCancelSignal();
			seen.baseline = getEventListeners(seen.signal!, 'abort').length;
			seen.maxListenersAtStart = getMaxListeners(seen.signal!);
		}
		sample();
		if (round > ROUNDS) return [[{ json: { rounds: round - 1 } }], []];
		return [[], [{ json: { round } }]];
	}
}

const png = solidPng(2, 2, [0, 128, 255]);
/** A source whose job finishes on the next turn of the event loop: the test is about the signal, not FLUX. */
const instantSource: ConcurrentSource<number, ImageJobResult> = {
	description: bareDescription('instant', 1),
	outputKind: 'image',
	model: 'instant',
	prepare: async (_ctx, itemIndex) => itemIndex,
	run: async () => {
		sampleWhileCollecting();
		await new Promise((resolve) => setImmediate(resolve));
		sampleWhileCollecting();
		return { outcome: 'success', buffer: png, mimeType: 'image/png', fileExtension: 'png' };
	},
	sizeOf: (result) => result.buffer?.byteLength ?? 0,
};
const InstantSubmit = makeConcurrentTwin(instantSource, {
	name: 'instantSubmit',
	displayName: 'Instant Submit',
	description: 'test',
	icon: 'file:x.svg',
	defaultName: 'Instant Submit',
});
/** The submit node, sampled as it returns: its jobs admitted, its watch held, no collector waiting yet. */
const instantSubmit = new InstantSubmit();
const execute = instantSubmit.execute!;
instantSubmit.execute = async function (this: IExecuteFunctions) {
	const output = await execute.call(this);
	sample();
	return output;
};

it(`${ROUNDS} submit → collect rounds in one execution add at most one listener to its cancel signal`, async () => {
	const warnings: Error[] = [];
	const onWarning = (warning: Error) => warnings.push(warning);
	process.on('warning', onWarning);
	try {
		const result = await runWorkflow({
			nodes: [
				manualTrigger('Trigger'),
				{ name: 'Loop', type: 'test.loop', parameters: {} },
				{ name: 'Submit', type: 'test.instantSubmit', parameters: {} },
				{ name: 'Collect', type: 'test.collect', parameters: {} },
			],
			connections: connect(['Trigger', 'Loop'], ['Loop', 'Submit', 1, 0], ['Submit', 'Collect'], ['Collect', 'Loop']),
			nodeTypes: { 'test.loop': new Loop(), 'test.instantSubmit': instantSubmit, 'test.collect': new ConcurrentCollect() },
		});
		expect(result.status).toBe('success');
		expect(result.runData.Loop).toHaveLength(ROUNDS + 1);
		expect(result.outputOf('Loop', 0, ROUNDS)).toEqual([expect.objectContaining({ json: { rounds: ROUNDS } })]);
		expect(result.runData.Collect).toHaveLength(ROUNDS);
		expect(result.outputOf('Collect', 0, ROUNDS - 1)[0].json).toMatchObject({ status: 'success' });
		await new Promise((resolve) => setImmediate(resolve)); // let process 'warning' events be delivered
	} finally {
		process.off('warning', onWarning);
	}
	expect(seen.most - seen.baseline).toBeLessThanOrEqual(1);
	// The shared watch plus the waiting collector's own listener, in every round alike: nothing accumulates.
	expect(seen.mostWhileCollecting - seen.baseline).toBeLessThanOrEqual(2);
	expect(getEventListeners(seen.signal!, 'abort')).toHaveLength(seen.baseline);
	expect(getMaxListeners(seen.signal!)).toBe(seen.maxListenersAtStart); // n8n's setting is left alone
	expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
	expect(poolFor('image').stats()).toMatchObject({ admitted: 0 });
});
