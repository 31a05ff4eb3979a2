/**
 * The submit node's hot path (30 task items in < 10 ms), through n8n's real engine and the relay
 * simulator: what is the same for every item is read once per run, items sharing one stored binary have it
 * decoded once, and no job's work runs before execute() returns, while every task item returned is already a job
 * the pool knows (a collector finds it).
 */
import type { IExecuteFunctions, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import { type RelaySimulator } from '../../relay-sim';
import { solidPng } from '../../relay-sim/pngCodec';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { makeFluxSource } from '../../src/fluxN8n/fluxNode';
import { fluxImageNode } from '../../src/fluxN8n/imageJobs';

import { poolFor } from '../../src/pool';
import { makeConcurrentTwin } from '../../src/twin/makeConcurrentTwin';
import { fluxImageDescription } from '../../nodes/FluxImage/FluxImage.description';
import { fluxCredentials, submitNode, TYPES, until } from './setup';

const makeFluxImageSource = (description: typeof fluxImageDescription) => makeFluxSource(description, fluxImageNode);

process.env.COMFLY_IMAGE_CONCURRENCY = '30';
let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 60_000 }, (started) => (sim = started));

/** What the node asked n8n for during one run, and what the jobs had done when execute() returned. */
const seen = { parameterReads: [] as string[], credentialReads: 0, nodeCopies: 0, binaryDecodes: 0, runsStarted: 0, runsStartedAtReturn: -1, knownAtReturn: [] as string[], returnedJobIds: [] as string[] };
/** Called synchronously as execute() returns (before any job's deferred work starts). */
let afterReturn: (() => void) | undefined;

/** The real FLUX source, its n8n context observed (the counting wraps only forward to n8n's own functions). */
const source = makeFluxImageSource(fluxImageDescription);
const observed = new WeakSet<object>();
function observe(ctx: IExecuteFunctions): void {
	if (observed.has(ctx)) return;
	observed.add(ctx);
	const { getNodeParameter, getCredentials, getNode } = ctx;
	const { getBinaryDataBuffer } = ctx.helpers;
	ctx.getNodeParameter = ((...args: Parameters<typeof getNodeParameter>) => {
		if (!(args[3] as { rawExpressions?: boolean } | undefined)?.rawExpressions) seen.parameterReads.push(args[0]);
		return getNodeParameter.apply(ctx, args);
	}) as typeof getNodeParameter;
	ctx.getNode = (() => {
		seen.nodeCopies++; // n8n deep-copies the node, its parameters too, on each call
		return getNode.apply(ctx);
	}) as typeof getNode;
	ctx.getCredentials = (async (...args: Parameters<typeof getCredentials>) => {
		seen.credentialReads++;
		return await getCredentials.apply(ctx, args);
	}) as typeof getCredentials;
	ctx.helpers.getBinaryDataBuffer = (async (...args: Parameters<typeof getBinaryDataBuffer>) => {
		seen.binaryDecodes++;
		return await getBinaryDataBuffer.apply(ctx.helpers, args);
	}) as typeof getBinaryDataBuffer;
}
const ObservedSubmit = makeConcurrentTwin(
	{
		...source,
		prepare: async (ctx, itemIndex) => {
			observe(ctx);
			return await source.prepare(ctx, itemIndex);
		},
		run: async (job, context) => {
			seen.runsStarted++;
			return await source.run(job, context);
		},
	},
	{ name: 'observedSubmit', displayName: 'Observed Submit', description: 'test', icon: 'file:x.svg', defaultName: 'Submit' },
);
const submit = new ObservedSubmit();
const execute = submit.execute!;
submit.execute = async function (this: IExecuteFunctions) {
	const output = (await execute.call(this)) as INodeExecutionData[][];
	seen.runsStartedAtReturn = seen.runsStarted;
	const pool = poolFor('image');
	seen.knownAtReturn = output[0].map((item: INodeExecutionData) => (item.json.jobId === undefined ? 'no job' : pool.get(String(item.json.jobId)).state));
	seen.returnedJobIds = output[0].map((item: INodeExecutionData) => String(item.json.jobId));
	afterReturn?.();
	return output;
};

async function submit30(parameters: INodeParameters, triggerItems: INodeExecutionData[]) {
	Object.assign(seen, { parameterReads: [], credentialReads: 0, nodeCopies: 0, binaryDecodes: 0, runsStarted: 0, runsStartedAtReturn: -1, knownAtReturn: [] });
	const result = await runWorkflow({
		nodes: [manualTrigger('Trigger'), submitNode('Submit', parameters)],
		connections: connect(['Trigger', 'Submit']),
		nodeTypes: { [TYPES.submit]: submit },
		credentials: fluxCredentials(sim),
		triggerItems,
	});
	expect(result.status).toBe('success');
	const jobIds = result.outputOf('Submit').map((task) => String(task.json.jobId));
	expect(jobIds).toHaveLength(30);
	return jobIds;
}

async function cancel(jobIds: string[]): Promise<void> {
	poolFor('image').cancelJobs(jobIds);
	await Promise.all(jobIds.map(async (id) => await poolFor('image').wait(id)));
}

const prompts = Array.from({ length: 30 }, (_, i) => ({ json: { i } }));

it('30 items: the prompt (an expression) is read per item, the parameters without one once; every task is a known job; no job ran before execute() returned', async () => {
	const jobIds = await submit30({ prompt: '={{ "hot path " + $json.i }}', resolution: '2k', options: { cache: 'off' } }, prompts);
	expect(seen.parameterReads.filter((name) => name === 'prompt')).toHaveLength(30);
	for (const name of ['resolution', 'aspectRatio', 'grounding', 'safetyTolerance', 'seed', 'referenceImages', 'skipError', 'options']) {
		expect(seen.parameterReads.filter((read) => read === name)).toHaveLength(1);
	}
	// A credential field may hold an expression n8n resolves per item: it is still asked for per item.
	expect(seen.credentialReads).toBe(30);
	// The node itself (a deep copy per call in n8n): not per item.
	expect(seen.nodeCopies).toBeLessThanOrEqual(3);
	expect(seen.knownAtReturn).toHaveLength(30);
	for (const state of seen.knownAtReturn) expect(['queued', 'running']).toContain(state);
	expect(seen.runsStartedAtReturn).toBe(0);
	// And the jobs do run afterwards: all 30 reach the API, each with its own prompt and the shared resolution.
	await until(() => sim.log.submits.length >= 30, 'the jobs reach the simulator');
	expect(new Set(sim.log.submits.slice(-30).map((s) => (s.body as { prompt: string }).prompt)).size).toBe(30);
	for (const s of sim.log.submits.slice(-30)) expect(s.body).toMatchObject({ resolution: '2k' });
	await cancel(jobIds);
});

it('30 items sharing one in-memory binary reference: n8n decodes it once per run, not once per item', async () => {
	const shared = solidPng(256, 256, [10, 200, 30]).toString('base64'); // FLUX 3 Image's smallest reference
	const items = prompts.map((item) => ({ ...item, binary: { data: { data: shared, mimeType: 'image/png' } } }));
	const jobIds = await submit30({ prompt: '={{ "ref " + $json.i }}', referenceImages: { images: [{ source: 'data' }] }, options: { cache: 'off' } }, items);
	expect(seen.binaryDecodes).toBe(1);
	await until(() => sim.log.submits.length >= 30, 'the jobs reach the simulator');
	for (const s of sim.log.submits.slice(-30)) expect(s.body).toMatchObject({ images: [shared] });
	await cancel(jobIds);
});

it('the execution is cancelled right as the submit node returns: no job reaches the API and every job ends cancelled', async () => {
	Object.assign(seen, { runsStarted: 0, runsStartedAtReturn: -1, returnedJobIds: [] });
	const controller = new AbortController();
	afterReturn = () => controller.abort();
	const submitsBefore = sim.log.submits.length;
	try {
		const result = await runWorkflow({
			nodes: [manualTrigger('Trigger'), submitNode('Submit', { prompt: '={{ "cancelled " + $json.i }}', options: { cache: 'off' } })],
			connections: connect(['Trigger', 'Submit']),
			nodeTypes: { [TYPES.submit]: submit },
			credentials: fluxCredentials(sim),
			triggerItems: prompts,
			signal: controller.signal,
		});
		expect(result.status).toBe('canceled');
	} finally {
		afterReturn = undefined;
	}
	expect(seen.runsStartedAtReturn).toBe(0);
	expect(seen.returnedJobIds).toHaveLength(30);
	const finals = await Promise.all(seen.returnedJobIds.map(async (id) => await poolFor('image').wait(id)));
	for (const job of finals) expect(job.state).toBe('cancelled');
	expect(sim.log.submits.length).toBe(submitsBefore);
});

it('expressions only inside a collection are read per item: a bad value in item 5 alone fails item 5, naming it and the field (continue on fail)', async () => {
	const items8 = Array.from({ length: 8 }, (_, i) => ({ json: { i, size: i === 5 ? -3 : 2 } }));
	const result = await runWorkflow({
		nodes: [
			manualTrigger('Trigger'),
			submitNode(
				'Submit',
				{ prompt: 'same prompt', resolution: '={{ $json.i % 2 ? "2k" : "1k" }}', options: { cache: 'off', maxDownloadMb: '={{ $json.size }}' } },
				{ onError: 'continueRegularOutput' },
			),
		],
		connections: connect(['Trigger', 'Submit']),
		nodeTypes: { [TYPES.submit]: submit },
		credentials: fluxCredentials(sim),
		triggerItems: items8,
	});
	expect(result.error?.message).toBeUndefined();
	expect(result.status).toBe('success');
	const out = result.outputOf('Submit');
	expect(out).toHaveLength(8);
	expect(out.map((item) => item.pairedItem)).toEqual(items8.map((_, i) => ({ item: i })));
	expect(out[5].json.jobId).toBeUndefined();
	expect(String(out[5].json.error)).toMatch(/Max Image Size/);
	expect(String(out[5].json.error)).toMatch(/item 5\b/);
	const jobIds = out.filter((_, i) => i !== 5).map((item) => String(item.json.jobId));
	expect(new Set(jobIds).size).toBe(7);
	await until(() => sim.log.submits.length >= 7, 'the jobs reach the simulator');
	// Same prompt, per-item resolution: 7 distinct jobs, each with its own item's resolution.
	expect(sim.log.submits.slice(-7).map((s) => (s.body as { resolution: string }).resolution).sort()).toEqual(['1k', '1k', '1k', '1k', '2k', '2k', '2k']);
	await cancel(jobIds);
});

it("a credential field with an expression is resolved per item, also for items asked ahead: a bad key in items 17 and 38 fails only those items, each naming itself (continue on fail)", async () => {
	Object.assign(seen, { credentialReads: 0 });
	const submitsBefore = sim.log.submits.length;
	const items40 = Array.from({ length: 40 }, (_, i) => ({ json: { i, key: i === 17 || i === 38 ? 'has a space' : sim.apiKey } }));
	const result = await runWorkflow({
		nodes: [manualTrigger('Trigger'), submitNode('Submit', { prompt: '={{ "own key " + $json.i }}', options: { cache: 'off' } }, { onError: 'continueRegularOutput' })],
		connections: connect(['Trigger', 'Submit']),
		nodeTypes: { [TYPES.submit]: submit },
		credentials: { fluxApi: { apiStyle: 'relay', baseUrl: sim.url, apiKey: '={{ $json.key }}' } },
		triggerItems: items40,
	});
	expect(result.error?.message).toBeUndefined();
	expect(result.status).toBe('success');
	// Asked once per item, as before the asks went ahead.
	expect(seen.credentialReads).toBe(40);
	const out = result.outputOf('Submit');
	expect(out.map((item) => item.pairedItem)).toEqual(items40.map((_, i) => ({ item: i })));
	for (const bad of [17, 38]) {
		expect(out[bad].json.jobId).toBeUndefined();
		expect(String(out[bad].json.error)).toMatch(/API Key/);
		expect(String(out[bad].json.error)).toMatch(new RegExp(`item ${bad}\\b`));
	}
	const jobIds = out.filter((_, i) => i !== 17 && i !== 38).map((item) => String(item.json.jobId));
	expect(new Set(jobIds).size).toBe(38);
	// The other items' jobs reach the API (30 at a time: the pool's concurrency), each with its own prompt.
	await until(() => sim.log.submits.length >= submitsBefore + 30, 'the jobs reach the simulator');
	const prompts = sim.log.submits.slice(submitsBefore).map((s) => (s.body as { prompt: string }).prompt);
	expect(new Set(prompts).size).toBe(prompts.length);
	expect(prompts).not.toContain('own key 17');
	expect(prompts).not.toContain('own key 38');
	await cancel(jobIds);
});
