import { NodeConnectionTypes, type INodeParameters, type INodeTypeDescription } from 'n8n-workflow';

/**
 * One main input per "Number of Inputs", as in n8n's Merge node v3. n8n turns
 * this function's source into an expression, so it must not use imports.
 */
export const configuredInputs = (parameters: INodeParameters) =>
	Array.from({ length: Number(parameters.numberInputs) || 1 }, (_, index) => ({
		type: 'main',
		displayName: `Tasks ${index + 1}`,
	}));

export const concurrentCollectDescription: INodeTypeDescription = {
	displayName: 'Concurrent Collect Images',
	name: 'concurrentCollect',
	icon: 'file:concurrentCollect.svg',
	group: ['transform'],
	version: 1,
	subtitle: '={{$parameter["failureMode"] === "placeholder" ? "placeholder on failure" : "fail fast"}}',
	description:
		'Wait for up to 30 concurrent tasks and return their images in slot order, with a status report',
	defaults: { name: 'Concurrent Collect Images' },
	usableAsTool: undefined,
	inputs: `={{(${configuredInputs})($parameter)}}`,
	outputs: [NodeConnectionTypes.Main, NodeConnectionTypes.Main],
	outputNames: ['Images', 'Report'],
	hints: [
		{
			message:
				'A slot is one task: slots are numbered 1…N across the inputs in order (input 1’s items first). Each output item is one slot, in slot order, whatever order the jobs finished in.',
			type: 'info',
			location: 'inputPane',
			whenToDisplay: 'always',
		},
	],
	properties: [
		{
			displayName:
				'Each input item must be a task from a Concurrent Submit node. Slots run 1…N across inputs in order, at most 30 in all; for more, use Loop Over Items with a batch size of 30.',
			name: 'notice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'Number of Inputs',
			name: 'numberInputs',
			type: 'options',
			noDataExpression: true,
			default: 1,
			options: Array.from({ length: 10 }, (_, index) => ({ name: String(index + 1), value: index + 1 })),
			description: 'How many submit nodes feed this collector. The node waits for all connected inputs.',
		},
		{
			displayName: 'Failure Mode',
			name: 'failureMode',
			type: 'options',
			noDataExpression: true,
			default: 'failFast',
			options: [
				{
					name: 'Fail Fast',
					value: 'failFast',
					description:
						'The first failed slot stops the node and cancels the still-queued jobs (they are never sent, never paid)',
				},
				{
					name: 'Placeholder',
					value: 'placeholder',
					description: 'A failed slot gets a red 64×64 image and status failed; the batch completes',
				},
			],
		},
		{
			displayName: 'Put Output File in Field',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			required: true,
			description: 'The binary property of each output item that holds the image',
		},
	],
};
