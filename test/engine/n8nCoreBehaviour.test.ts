/**
 * Tests n8n-core's OWN behaviour, not this package's code: it proves the engine harness
 * against n8n-core's real WorkflowExecute and pins down the n8n behaviours our nodes rely on
 * (multi-input nodes, error output routing, continueOnFail, cancellation), so that an n8n
 * upgrade that changes them fails here first. Only fake node types run here; see README.md
 * for the findings in prose.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { existsSync } from 'node:fs';
// NB: import n8n-core only AFTER './harness' (whose jest.mock('p-retry') makes n8n-core loadable);
// this test needs nothing from n8n-core directly.
import {
	ManualExecutionCancelledError,
	NodeConnectionTypes,
	NodeOperationError,
} from 'n8n-workflow';
import type {
	ExpressionString,
	IExecuteFunctions,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { binaryFilePath, configureEngine, connect, manualTrigger, runWorkflow } from './harness';
import type { EngineRun } from './harness';

// ---------------------------------------------------------------------------------------------
// helpers

function nodeType(
	name: string,
	execute: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>,
	description: Partial<INodeTypeDescription> = {},
): INodeType {
	return {
		description: {
			displayName: name,
			name,
			group: ['transform'],
			version: 1,
			description: `test node ${name}`,
			defaults: { name },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			properties: [],
			...description,
		},
		execute,
	};
}

function deferred<T = void>() {
	let resolve!: (value: T) => void;
	const promise = new Promise<T>((r) => (resolve = r));
	return { promise, resolve };
}

/** Tags each item with the node that passed it on, so merges can be traced. */
const tagger = nodeType('tagger', async function () {
	return [this.getInputData().map((item, i) => ({ json: { ...item.json, from: this.getNode().name }, pairedItem: { item: i } }))];
});
const nothing = nodeType('nothing', async () => [[]]);
const passThrough = nodeType('passThrough', async function () {
	return [this.getInputData()];
});

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Reads `fooApi` credentials and renders one tiny "PNG" per input item. */
const renderer = nodeType(
	'renderer',
	async function () {
		const credentials = await this.getCredentials<{ apiKey: string }>('fooApi');
		const out: INodeExecutionData[] = [];
		for (const [i, item] of this.getInputData().entries()) {
			const bytes = Buffer.from([...PNG_MAGIC, i, ...Buffer.from(String(item.json.prompt))]);
			const binary = await this.helpers.prepareBinaryData(bytes, 'x.png', 'image/png');
			out.push({
				json: { prompt: item.json.prompt, keyTail: credentials.apiKey.slice(-4) },
				binary: { data: binary },
				pairedItem: { item: i },
			});
		}
		return [out];
	},
	{ credentials: [{ name: 'fooApi', required: true }] },
);

/** Downstream consumer: reads the binary back through the node API. */
const byteCounter = nodeType('byteCounter', async function () {
	const out: INodeExecutionData[] = [];
	for (let i = 0; i < this.getInputData().length; i++) {
		const buffer = await this.helpers.getBinaryDataBuffer(i, 'data');
		out.push({ json: { size: buffer.length, first: buffer[0] }, pairedItem: { item: i } });
	}
	return [out];
});

async function renderRun(): Promise<EngineRun> {
	return await runWorkflow({
		nodes: [manualTrigger(), { name: 'Render', type: 'renderer' }, { name: 'Count', type: 'byteCounter' }],
		connections: connect(['Trigger', 'Render'], ['Render', 'Count']),
		nodeTypes: { renderer, byteCounter },
		credentials: { fooApi: { apiKey: 'sk-test-1234' } },
		triggerItems: [{ json: { prompt: 'cat' } }, { json: { prompt: 'dog' } }],
	});
}

async function expectRenderedBinaries(run: EngineRun): Promise<void> {
	expect(run.status).toBe('success');
	const rendered = run.outputOf('Render');
	expect(rendered.map((item) => item.json)).toEqual([
		{ prompt: 'cat', keyTail: '1234' },
		{ prompt: 'dog', keyTail: '1234' },
	]);
	// pairedItem as returned by the node survives into the run data
	expect(rendered.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	for (const [i, item] of rendered.entries()) {
		expect(item.binary?.data).toMatchObject({ mimeType: 'image/png', fileName: 'x.png', fileExtension: 'png' });
		const bytes = await run.binaryBuffer(item);
		expect([...bytes]).toEqual([...PNG_MAGIC, i, ...Buffer.from(i === 0 ? 'cat' : 'dog')]);
	}
	expect(run.outputOf('Count').map((item) => item.json)).toEqual([
		{ size: 12, first: 0x89 },
		{ size: 12, first: 0x89 },
	]);
}

// ---------------------------------------------------------------------------------------------
// 1. credentials, binary data, pairedItem

describe('1. credentials + binary data + pairedItem', () => {
	it('in-memory binary mode (default): binary travels base64 inside the item', async () => {
		const run = await renderRun();
		await expectRenderedBinaries(run);
		const binary = run.outputOf('Render')[0].binary!.data;
		expect(binary.id).toBeUndefined();
		expect(Buffer.from(binary.data, 'base64').subarray(0, 4)).toEqual(Buffer.from(PNG_MAGIC.slice(0, 4)));
		expect(run.executionOrder).toEqual(['Trigger', 'Render', 'Count']);
	});

	it('a missing credential fails the node with a clear error', async () => {
		const run = await runWorkflow({
			nodes: [manualTrigger(), { name: 'Render', type: 'renderer' }],
			connections: connect(['Trigger', 'Render']),
			nodeTypes: { renderer },
		});
		expect(run.status).toBe('error');
		expect(run.errorOf('Render')?.message).toBe('Node does not have any credentials set');
	});

	it("runs in 'trigger' mode too, and can start from a non-trigger node with given input", async () => {
		const triggerMode = await runWorkflow({
			nodes: [manualTrigger(), { name: 'Tag', type: 'tagger' }],
			connections: connect(['Trigger', 'Tag']),
			nodeTypes: { tagger },
			triggerItems: [{ json: { n: 1 } }],
			mode: 'trigger',
		});
		expect(triggerMode.outputOf('Tag').map((i) => i.json)).toEqual([{ n: 1, from: 'Tag' }]);

		const fromNode = await runWorkflow({
			nodes: [{ name: 'Tag', type: 'tagger' }, { name: 'Pass', type: 'passThrough' }],
			connections: connect(['Tag', 'Pass']),
			nodeTypes: { tagger, passThrough },
			startNode: 'Tag',
			triggerItems: [{ json: { n: 2 } }, { json: { n: 3 } }],
		});
		expect(fromNode.outputOf('Pass').map((i) => i.json)).toEqual([
			{ n: 2, from: 'Tag' },
			{ n: 3, from: 'Tag' },
		]);
	});
});

// ---------------------------------------------------------------------------------------------
// 2. multi-input node with inputs computed from a parameter (Merge v3 style)

/**
 * Copy of Merge v3's `configuredInputs` (nodes-base Merge/v3/helpers/utils.ts). Merge v3 declares
 * `inputs: \`={{(${configuredInputs})($parameter)}}\`` — the function's *source* is inlined into
 * an expression, so it must not reference imports (write 'main', not NodeConnectionTypes.Main).
 */
const configuredInputs = (parameters: INodeParameters) =>
	Array.from({ length: (parameters.numberInputs as number) || 2 }, (_, i) => ({
		type: 'main',
		displayName: `Input ${i + 1}`,
	}));
const DYNAMIC_INPUTS = `={{(${configuredInputs})($parameter)}}` as ExpressionString;

interface MergeCall {
	declaredInputs: number;
	perInput: unknown[][];
	/** how many getInputData(i) slots answer without throwing */
	inputSlots: number;
}

function makeMerge(calls: MergeCall[], requiredInputs?: number | number[]): INodeType {
	return nodeType(
		'dynMerge',
		async function () {
			const declaredInputs = this.getNodeInputs().filter((i) => i.type === 'main').length;
			const perInput = Array.from({ length: declaredInputs }, (_, i) => this.getInputData(i).map((item) => item.json.from));
			let inputSlots = 0;
			while (inputSlots < 1000) {
				try {
					this.getInputData(inputSlots + 1);
					inputSlots++;
				} catch {
					break;
				}
			}
			calls.push({ declaredInputs, perInput, inputSlots });
			const all = Array.from({ length: declaredInputs }, (_, i) => this.getInputData(i)).flat();
			return [all.map((item) => ({ json: item.json, pairedItem: item.pairedItem }))];
		},
		{
			inputs: DYNAMIC_INPUTS,
			requiredInputs,
			properties: [{ displayName: 'Number of Inputs', name: 'numberInputs', type: 'number', default: 2 }],
		},
	);
}

async function runMerge(upstreamTypes: string[], merge: INodeType): Promise<EngineRun> {
	const names = ['A', 'B', 'C'];
	return await runWorkflow({
		nodes: [
			manualTrigger(),
			...upstreamTypes.map((type, i) => ({ name: names[i], type, position: [200, i * 200] as [number, number] })),
			{ name: 'Merge', type: 'dynMerge', parameters: { numberInputs: 3 }, position: [400, 0] },
		],
		connections: connect(
			...upstreamTypes.map((_, i): [string, string] => ['Trigger', names[i]]),
			...upstreamTypes.map((_, i): [string, string, number, number] => [names[i], 'Merge', 0, i]),
		),
		nodeTypes: { tagger, nothing, dynMerge: merge },
	});
}

describe('2. node with N main inputs from `numberInputs` (dynamic inputs expression)', () => {
	it('executes ONCE with all 3 inputs once every connected input has delivered (v1 order)', async () => {
		const calls: MergeCall[] = [];
		const run = await runMerge(['tagger', 'tagger', 'tagger'], makeMerge(calls, 1));

		expect(run.status).toBe('success');
		// v1: depth-first per branch, branches ordered by canvas position (top first); the
		// multi-input node is parked in waitingExecution until all connected inputs have data.
		expect(run.executionOrder).toEqual(['Trigger', 'A', 'B', 'C', 'Merge']);
		expect(calls).toEqual([{ declaredInputs: 3, perInput: [['A'], ['B'], ['C']], inputSlots: 3 }]);
		// one run of Merge; source lists the 3 parents; pairedItem.input = input index (0 omitted)
		expect(run.runData.Merge).toHaveLength(1);
		expect(run.taskData('Merge').source.map((s) => s?.previousNode)).toEqual(['A', 'B', 'C']);
		expect(run.outputOf('Merge').map((i) => i.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 0, input: 1 },
			{ item: 0, input: 2 },
		]);
	});

	it('an upstream emitting 0 items: node still runs once (after the stack drains) with [] for that input', async () => {
		const calls: MergeCall[] = [];
		const run = await runMerge(['tagger', 'tagger', 'nothing'], makeMerge(calls, 1));
		expect(run.executionOrder).toEqual(['Trigger', 'A', 'B', 'C', 'Merge']);
		expect(calls).toHaveLength(1);
		expect(calls[0].perInput).toEqual([['A'], ['B'], []]);
		// QUIRK: on this "waiting node" path n8n pads inputData.main up to
		// `nodeType.description.inputs.length` — for an expression that is the *string length*,
		// so getInputData(i) answers [] for i far beyond the declared inputs.
		expect(calls[0].inputSlots).toBe(DYNAMIC_INPUTS.length);
	});

	it('with requiredInputs = 3, an empty upstream means the node silently never runs', async () => {
		const calls: MergeCall[] = [];
		const run = await runMerge(['tagger', 'tagger', 'nothing'], makeMerge(calls, 3));
		expect(run.status).toBe('success');
		expect(run.ran('Merge')).toBe(false);
		expect(calls).toHaveLength(0);
	});
});

// ---------------------------------------------------------------------------------------------
// 3. two outputs + onError: 'continueErrorOutput'

const TWO_OUTPUTS = [
	{ type: NodeConnectionTypes.Main, displayName: 'Main' },
	{ type: NodeConnectionTypes.Main, displayName: 'Report' },
];

/** Per input item `v`, emits an item of a given shape on "Main" (0) or "Report" (1). */
const splitter = nodeType(
	'splitter',
	async function () {
		const main: INodeExecutionData[] = [];
		const report: INodeExecutionData[] = [];
		const extra: INodeExecutionData[] = [];
		for (const [i, item] of this.getInputData().entries()) {
			const pairedItem = { item: i };
			switch (item.json.v) {
				case 'ok':
					main.push({ json: { ok: true }, pairedItem });
					break;
				case 'onlyError':
					main.push({ json: { error: 'main failed' }, pairedItem });
					break;
				case 'errorAndMessage':
					report.push({ json: { error: 'report failed', message: 'details' }, pairedItem });
					break;
				case 'errorObject':
					main.push({
						json: { partial: 1 },
						error: new NodeOperationError(this.getNode(), 'typed failure', { itemIndex: i }),
						pairedItem,
					});
					break;
				case 'errorPlusOtherKeys':
					main.push({ json: { error: 'not routed', other: 1 }, pairedItem });
					break;
				case 'report':
					report.push({ json: { summary: 'fine' }, pairedItem });
					break;
			}
			extra.push({ json: { ignored: true }, pairedItem });
		}
		return [main, report, extra];
	},
	{ outputs: TWO_OUTPUTS },
);

describe("3. two outputs ('Main', 'Report') with onError: 'continueErrorOutput'", () => {
	it('routes error-shaped items from every main output to an appended 3rd "Error" output', async () => {
		const v = ['ok', 'onlyError', 'errorAndMessage', 'errorObject', 'errorPlusOtherKeys', 'report'];
		const run = await runWorkflow({
			nodes: [
				manualTrigger(),
				{ name: 'Split', type: 'splitter', onError: 'continueErrorOutput' },
				{ name: 'OnError', type: 'passThrough' },
			],
			connections: connect(['Trigger', 'Split'], ['Split', 'OnError', 2, 0]),
			nodeTypes: { splitter, passThrough },
			triggerItems: v.map((value) => ({ json: { v: value, input: `in-${value}` } })),
		});
		expect(run.status).toBe('success');
		const [main, report, error] = run.outputsOf('Split');
		expect(run.outputsOf('Split')).toHaveLength(3);

		// Output 0 "Main" keeps non-error items. {error, other} is NOT an error item (needs json
		// to be exactly {error} or {error, message}, or item.error set).
		expect(main.map((i) => i.json)).toEqual([{ ok: true }, { error: 'not routed', other: 1 }]);
		expect(report.map((i) => i.json)).toEqual([{ summary: 'fine' }]);

		// Output 2 "Error" (appended by n8n): error items of output 0 first, then output 1. What the
		// node itself returned at index 2 is overwritten. json = {...paired INPUT item json, ...item json};
		// items with `item.error` end up with json = { error: error.message } (input merge lost).
		expect(error.map((i) => i.json)).toEqual([
			{ v: 'onlyError', input: 'in-onlyError', error: 'main failed' },
			{ error: 'typed failure' },
			{ v: 'errorAndMessage', input: 'in-errorAndMessage', error: 'report failed', message: 'details' },
		]);
		expect(error.map((i) => i.pairedItem)).toEqual([{ item: 1 }, { item: 3 }, { item: 2 }]);
		expect(error[1].error).toMatchObject({ name: 'NodeOperationError', message: 'typed failure' });

		// The error branch ran with those 3 items
		expect(run.outputOf('OnError').map((i) => i.json.error)).toEqual(['main failed', 'typed failure', 'report failed']);
		expect(run.errorOf('Split')).toBeUndefined();
	});

	it('a node that THROWS under continueErrorOutput: input items pass through on output 0 (not the error output)', async () => {
		const thrower = nodeType(
			'thrower',
			async function () {
				throw new NodeOperationError(this.getNode(), 'whole node failed');
			},
			{ outputs: TWO_OUTPUTS },
		);
		const run = await runWorkflow({
			nodes: [
				manualTrigger(),
				{ name: 'Throw', type: 'thrower', onError: 'continueErrorOutput' },
				{ name: 'OnMain', type: 'passThrough' },
				{ name: 'OnError', type: 'passThrough' },
			],
			connections: connect(['Trigger', 'Throw'], ['Throw', 'OnMain', 0, 0], ['Throw', 'OnError', 2, 0]),
			nodeTypes: { thrower, passThrough },
			triggerItems: [{ json: { a: 1 } }],
		});
		expect(run.status).toBe('success');
		expect(run.outputsOf('Throw')).toEqual([[{ json: { a: 1 }, pairedItem: { item: 0 } }]]);
		expect(run.errorOf('Throw')?.message).toBe('whole node failed');
		expect(run.taskData('Throw').executionStatus).toBe('error');
		expect(run.ran('OnMain')).toBe(true);
		expect(run.ran('OnError')).toBe(false);
	});
});

// ---------------------------------------------------------------------------------------------
// 4. NodeOperationError with itemIndex; continueOnFail

function failingOnSecondItem(seen: boolean[]): INodeType {
	return nodeType('failer', async function () {
		seen.push(this.continueOnFail());
		const out: INodeExecutionData[] = [];
		for (const [i, item] of this.getInputData().entries()) {
			try {
				if (i === 1) throw new Error(`item ${i} is bad`);
				out.push({ json: { ...item.json, ok: true }, pairedItem: { item: i } });
			} catch (error) {
				// the canonical n8n node pattern
				if (this.continueOnFail()) {
					out.push({ json: { error: (error as Error).message }, pairedItem: { item: i } });
					continue;
				}
				throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: i, description: 'more info' });
			}
		}
		return [out];
	});
}

describe('4. NodeOperationError with itemIndex, and continueOnFail', () => {
	const items = [{ json: { n: 0 } }, { json: { n: 1 } }, { json: { n: 2 } }];

	it('default (stop workflow): run status error, error on the run and on the node run', async () => {
		const seen: boolean[] = [];
		const run = await runWorkflow({
			nodes: [manualTrigger(), { name: 'Fail', type: 'failer' }, { name: 'After', type: 'passThrough' }],
			connections: connect(['Trigger', 'Fail'], ['Fail', 'After']),
			nodeTypes: { failer: failingOnSecondItem(seen), passThrough },
			triggerItems: items,
		});
		expect(seen).toEqual([false]);
		expect(run.status).toBe('error');
		expect(run.data.data.resultData.lastNodeExecuted).toBe('Fail');
		// a plain-object copy of the error ({...e, message, stack}), NOT an Error instance
		expect(run.error).not.toBeInstanceOf(Error);
		expect(run.error).toMatchObject({
			name: 'NodeOperationError',
			message: 'item 1 is bad',
			description: 'more info',
			context: { itemIndex: 1 },
			node: { name: 'Fail' },
		});
		expect(run.errorOf('Fail')).toMatchObject({ name: 'NodeOperationError', context: { itemIndex: 1 } });
		expect(run.taskData('Fail').executionStatus).toBe('error');
		expect(run.taskData('Fail').data).toBeUndefined();
		expect(run.ran('After')).toBe(false);
	});

	it("onError 'continueRegularOutput': continueOnFail() is true; error items stay on the main output as-is", async () => {
		const seen: boolean[] = [];
		const run = await runWorkflow({
			nodes: [
				manualTrigger(),
				{ name: 'Fail', type: 'failer', onError: 'continueRegularOutput' },
				{ name: 'After', type: 'passThrough' },
			],
			connections: connect(['Trigger', 'Fail'], ['Fail', 'After']),
			nodeTypes: { failer: failingOnSecondItem(seen), passThrough },
			triggerItems: items,
		});
		expect(seen).toEqual([true]);
		expect(run.status).toBe('success');
		expect(run.error).toBeUndefined();
		// no merge with the input item's json here (that only happens for continueErrorOutput)
		expect(run.outputOf('Fail').map((i) => i.json)).toEqual([{ n: 0, ok: true }, { error: 'item 1 is bad' }, { n: 2, ok: true }]);
		expect(run.outputOf('After')).toHaveLength(3);
	});

	it("onError 'continueRegularOutput' and the node throws anyway: input passes through; run status depends on what runs after", async () => {
		const thrower = nodeType('thrower', async function () {
			throw new NodeOperationError(this.getNode(), 'boom', { itemIndex: 0 });
		});
		const throwing = { name: 'Throw', type: 'thrower', onError: 'continueRegularOutput' as const };

		// QUIRK: WorkflowExecute keeps the caught error in a loop variable that is only reset when the
		// NEXT node starts. If the throwing node is the last one to execute, the run ends as 'error'
		// with resultData.error set — even though the node "continued".
		const last = await runWorkflow({
			nodes: [manualTrigger(), throwing],
			connections: connect(['Trigger', 'Throw']),
			nodeTypes: { thrower },
			triggerItems: [{ json: { n: 0 } }],
		});
		expect(last.outputOf('Throw').map((i) => i.json)).toEqual([{ n: 0 }]);
		expect(last.errorOf('Throw')).toMatchObject({ message: 'boom', context: { itemIndex: 0 } });
		expect(last.status).toBe('error');
		expect(last.error?.message).toBe('boom');

		const notLast = await runWorkflow({
			nodes: [manualTrigger(), throwing, { name: 'After', type: 'passThrough' }],
			connections: connect(['Trigger', 'Throw'], ['Throw', 'After']),
			nodeTypes: { thrower, passThrough },
			triggerItems: [{ json: { n: 0 } }],
		});
		expect(notLast.outputOf('After').map((i) => i.json)).toEqual([{ n: 0 }]);
		expect(notLast.errorOf('Throw')?.message).toBe('boom');
		expect(notLast.status).toBe('success');
		expect(notLast.error).toBeUndefined();
	});
});

// ---------------------------------------------------------------------------------------------
// 5. cancellation via getExecutionCancelSignal()

type OnAbort = 'return' | 'throwCanceled' | 'throwReason';

function waiterType(onAbort: OnAbort, started: () => void, seen: { signal?: AbortSignal; reason?: unknown }) {
	return nodeType('waiter', async function () {
		const signal = this.getExecutionCancelSignal();
		if (!signal) throw new Error('no cancel signal');
		seen.signal = signal;
		await new Promise<void>((resolve) => {
			signal.addEventListener('abort', () => resolve(), { once: true });
			started();
		});
		seen.reason = signal.reason;
		if (onAbort === 'throwReason') throw signal.reason;
		if (onAbort === 'throwCanceled') throw new NodeOperationError(this.getNode(), 'Execution canceled');
		return [this.getInputData()];
	});
}

async function cancelDuringWaiter(onAbort: OnAbort) {
	const started = deferred();
	const seen: { signal?: AbortSignal; reason?: unknown } = {};
	const controller = new AbortController();
	const runPromise = runWorkflow({
		nodes: [manualTrigger(), { name: 'Wait', type: 'waiter' }, { name: 'After', type: 'passThrough' }],
		connections: connect(['Trigger', 'Wait'], ['Wait', 'After']),
		nodeTypes: { waiter: waiterType(onAbort, started.resolve, seen), passThrough },
		signal: controller.signal,
	});
	await started.promise; // the node is now blocked on the signal
	expect(seen.signal?.aborted).toBe(false);
	controller.abort();
	return { run: await runPromise, seen };
}

describe('5. cancellation', () => {
	it('node returns when the signal fires: status canceled, ManualExecutionCancelledError, nothing downstream', async () => {
		const { run, seen } = await cancelDuringWaiter('return');
		expect(seen.signal).toBeInstanceOf(AbortSignal);
		expect(seen.reason).toMatchObject({ name: 'AbortError', message: 'This operation was aborted' });
		expect(run.status).toBe('canceled');
		expect(run.error).toMatchObject({ name: 'ManualExecutionCancelledError', message: 'The execution was cancelled manually' });
		expect(new ManualExecutionCancelledError('x').name).toBe('ManualExecutionCancelledError');
		// the node's own (post-abort) output is still recorded as a successful run
		expect(run.taskData('Wait').executionStatus).toBe('success');
		expect(run.ran('After')).toBe(false);
		// workflowExecuteAfter fires from the cancel handler, i.e. before the node even returned
		expect(run.hookEvents.map((e) => e.hook).slice(-2)).toEqual(['workflowExecuteAfter', 'nodeExecuteAfter']);
	});

	it("node throws an error whose message contains 'canceled': status canceled", async () => {
		const { run } = await cancelDuringWaiter('throwCanceled');
		expect(run.status).toBe('canceled');
		expect(run.errorOf('Wait')?.message).toBe('Execution canceled');
		expect(run.ran('After')).toBe(false);
	});

	it("QUIRK: node rethrows signal.reason (AbortError 'This operation was aborted'): status is 'error'", async () => {
		const { run } = await cancelDuringWaiter('throwReason');
		expect(run.status).toBe('error');
		expect(run.error?.message).toBe('This operation was aborted');
	});

	it('a signal aborted before the run starts cancels before any node runs', async () => {
		const run = await runWorkflow({
			nodes: [manualTrigger(), { name: 'After', type: 'passThrough' }],
			connections: connect(['Trigger', 'After']),
			nodeTypes: { passThrough },
			signal: AbortSignal.abort(),
		});
		expect(run.status).toBe('canceled');
		expect(run.executionOrder).toEqual([]);
	});

	describe('httpRequestWithAuthentication is wired to the cancel signal by n8n-core', () => {
		let server: Server;
		const sockets = new Set<Socket>();
		const requests: IncomingHttpHeaders[] = [];
		let requestArrived = deferred();
		beforeAll(async () => {
			server = createServer((req) => {
				requests.push(req.headers);
				requestArrived.resolve(); // and never respond
			});
			server.on('connection', (socket) => {
				sockets.add(socket);
				socket.on('close', () => sockets.delete(socket));
			});
			await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		});
		afterAll(async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise((resolve) => server.close(resolve));
		});

		it('aborts the in-flight request; NodeApiError "canceled" → status canceled; generic auth applied', async () => {
			requestArrived = deferred();
			const { port } = server.address() as AddressInfo;
			const fetcher = nodeType(
				'fetcher',
				async function () {
					const body = (await this.helpers.httpRequestWithAuthentication.call(this, 'fooApi', {
						url: `http://127.0.0.1:${port}/slow`,
						method: 'GET',
					})) as object;
					return [[{ json: { body } }]];
				},
				{ credentials: [{ name: 'fooApi', required: true }] },
			);
			const controller = new AbortController();
			const runPromise = runWorkflow({
				nodes: [manualTrigger(), { name: 'Fetch', type: 'fetcher' }],
				connections: connect(['Trigger', 'Fetch']),
				nodeTypes: { fetcher },
				credentials: { fooApi: { apiKey: 'sk-test-1234' } },
				credentialTypes: [
					{
						name: 'fooApi',
						displayName: 'Foo API',
						properties: [],
						authenticate: { type: 'generic', properties: { headers: { 'x-key': '={{$credentials.apiKey}}' } } },
					},
				],
				signal: controller.signal,
			});
			await requestArrived.promise;
			controller.abort();
			const run = await runPromise;
			expect(requests.at(-1)?.['x-key']).toBe('sk-test-1234');
			expect(run.status).toBe('canceled');
			expect(run.errorOf('Fetch')).toMatchObject({ name: 'NodeApiError', message: 'canceled', httpCode: 'ERR_CANCELED' });
		});
	});
});

// ---------------------------------------------------------------------------------------------
// filesystem binary mode (last: it switches the process-wide BinaryDataService)

describe("binary data in 'filesystem' mode", () => {
	beforeAll(async () => await configureEngine({ binaryDataMode: 'filesystem' }));
	afterAll(async () => await configureEngine({ binaryDataMode: 'default' }));

	it('stores binaries as files referenced by id; reading back gives the same bytes', async () => {
		const run = await renderRun();
		await expectRenderedBinaries(run);
		const binary = run.outputOf('Render')[0].binary!.data;
		expect(binary.data).toBe('filesystem-v2');
		expect(binary.id).toMatch(/^filesystem-v2:workflows\/harness-workflow\/executions\/harness-\d+\/binary_data\//);
		expect(existsSync(binaryFilePath(binary))).toBe(true);
	});
});
