import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions, INodeType, INodeExecutionData } from 'n8n-workflow';
import { runWorkflow, manualTrigger, connect } from '../harness';

const echo = (name: string, extra: Partial<INodeType['description']> = {}, exec?: INodeType['execute']): INodeType => ({
	description: { displayName: name, name, group: ['transform'], version: 1, description: '', defaults: { name }, inputs: ['main'], outputs: ['main'], properties: [], ...extra },
	execute: exec ?? async function (this: IExecuteFunctions) { return [this.getInputData()]; },
});

test('basic', async () => {
	const run = await runWorkflow({
		nodes: [manualTrigger(), { name: 'Echo', type: 'echo' }],
		connections: connect(['Trigger', 'Echo']),
		nodeTypes: { echo: echo('echo') },
		triggerItems: [{ json: { a: 1 } }, { json: { a: 2 } }],
	});
	console.log(run.status, run.executionOrder, JSON.stringify(run.runData, null, 1).slice(0, 3000));
});

test('merge dynamic', async () => {
	const configuredInputs = (parameters: { numberInputs?: number }) =>
		Array.from({ length: parameters.numberInputs || 2 }, (_, i) => ({ type: 'main', displayName: `Input ${i + 1}` }));
	const inputsExpr = `={{(${configuredInputs})($parameter)}}`;
	console.log(inputsExpr);
	const calls: unknown[] = [];
	const merge: INodeType = {
		description: { displayName: 'M', name: 'merge', group: ['transform'], version: 1, description: '', defaults: { name: 'M' },
			inputs: inputsExpr as any, outputs: ['main'], requiredInputs: 1,
			properties: [{ displayName: 'n', name: 'numberInputs', type: 'number', default: 2 }] },
		async execute(this: IExecuteFunctions) {
			const ins = this.getNodeInputs();
			const data = ins.map((_, i) => { try { return this.getInputData(i); } catch (e) { return String(e); } });
			calls.push({ ins, data, raw: (this as any).inputData });
			return [([] as INodeExecutionData[]).concat(...data.filter(Array.isArray) as INodeExecutionData[][])];
		},
	};
	const run = await runWorkflow({
		nodes: [manualTrigger(), { name: 'A', type: 'echo', position: [200, 0] }, { name: 'B', type: 'echo', position: [200, 200] }, { name: 'C', type: 'empty', position: [200, 400] },
			{ name: 'M', type: 'merge', parameters: { numberInputs: 3 }, position: [400, 0] }],
		connections: connect(['Trigger', 'A'], ['Trigger', 'B'], ['Trigger', 'C'], ['A', 'M', 0, 0], ['B', 'M', 0, 1], ['C', 'M', 0, 2]),
		nodeTypes: { echo: echo('echo'), empty: echo('empty', {}, async function () { return [[]]; }), merge },
	});
	console.log(run.status, run.executionOrder, run.error, JSON.stringify(calls, null, 1).slice(0, 3000));
});
