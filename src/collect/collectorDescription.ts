import {
	NodeConnectionTypes,
	type INodeParameters,
	type INodeProperties,
	type INodeTypeDescription,
} from 'n8n-workflow';

import type { CollectableResult, CollectorSpec } from './collectorSpec';

/** The most inputs a collector has, as in n8n's Merge node v3. */
export const MAX_INPUTS = 10;

/**
 * One main input per "Number of Inputs", as in n8n's Merge node v3. n8n turns
 * this function's source into an expression, so it must not use imports.
 */
export const configuredInputs = (parameters: INodeParameters) =>
	Array.from({ length: Number(parameters.numberInputs) || 1 }, (_, index) => ({
		type: 'main',
		displayName: `Tasks ${index + 1}`,
	}));

export const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The parameters: a notice, Number of Inputs (1–10), Failure Mode, the binary field. Names are stable. */
function collectorProperties<Result extends CollectableResult>(spec: CollectorSpec<Result>): INodeProperties[] {
	const { maxSlots } = spec;
	const { one } = spec.identity.noun;
	const onFailure = spec.failedSlot ? `gets ${spec.failedSlot.describe}` : `keeps its place with no ${one}`;
	return [
		{
			displayName: `Each input item must be a task from a Concurrent Submit node. Slots run 1…N across inputs in order, at most ${maxSlots} in all; for more, use Loop Over Items with a batch size of ${maxSlots}.`,
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
			options: Array.from({ length: MAX_INPUTS }, (_, index) => ({ name: String(index + 1), value: index + 1 })),
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
					description: `A failed slot ${onFailure} and status failed; the batch completes`,
				},
			],
		},
		{
			displayName: 'Put Output File in Field',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			required: true,
			description: `The binary property of each output item that holds the ${one}`,
		},
	];
}

/** The collector node's description: inputs 1–10, Failure Mode, the binary field, Report output. */
export function makeCollectorDescription<Result extends CollectableResult>(
	spec: CollectorSpec<Result>,
): INodeTypeDescription {
	const { identity } = spec;
	return {
		displayName: identity.displayName,
		name: identity.name,
		icon: identity.icon,
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["failureMode"] === "placeholder" ? "placeholder on failure" : "fail fast"}}',
		description: identity.description,
		defaults: { name: identity.defaultName },
		// Not an AI Agent tool: it waits for tasks on its wired inputs, which a tool call cannot supply.
		usableAsTool: undefined,
		inputs: `={{(${configuredInputs})($parameter)}}`,
		outputs: [NodeConnectionTypes.Main, NodeConnectionTypes.Main],
		outputNames: [capitalised(identity.noun.many), 'Report'],
		...(spec.credentials ? { credentials: structuredClone(spec.credentials) } : {}),
		hints: [
			{
				message:
					'A slot is one task: slots are numbered 1…N across the inputs in order (input 1’s items first). Each output item is one slot, in slot order, whatever order the jobs finished in.',
				type: 'info',
				location: 'inputPane',
				whenToDisplay: 'always',
			},
		],
		properties: collectorProperties(spec),
	};
}
