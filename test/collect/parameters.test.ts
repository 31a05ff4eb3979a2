/** The collector's own parameters: checked once, errors name the field and the value, reserved names refused. */
import type { IExecuteFunctions, INode } from 'n8n-workflow';

import { readCollectorParameters } from '../../src/collect/parameters';

const node: INode = { id: '1', name: 'Collect', type: 'n8n-nodes-flux-concurrent.concurrentCollect', typeVersion: 1, position: [0, 0], parameters: {} };

function ctxWith(parameters: Record<string, unknown>): IExecuteFunctions {
	return {
		getNode: () => node,
		getNodeParameter: (name: string, _item: number, fallback: unknown) => (name in parameters ? parameters[name] : fallback),
	} as unknown as IExecuteFunctions;
}

const read = (parameters: Record<string, unknown>) => readCollectorParameters(ctxWith(parameters));

it('defaults, and digits from an expression count as a number', () => {
	expect(read({})).toEqual({ numberInputs: 1, failureMode: 'failFast', binaryPropertyName: 'data' });
	expect(read({ numberInputs: ' 3 ', binaryPropertyName: ' image ' })).toMatchObject({ numberInputs: 3, binaryPropertyName: 'image' });
});

it.each([
	[{ numberInputs: 0 }, /Number of Inputs.*from 1 to 10.*got 0/],
	[{ numberInputs: 11 }, /Number of Inputs.*from 1 to 10.*got 11/],
	[{ numberInputs: 'abc' }, /Number of Inputs.*from 1 to 10.*got "abc"/],
	[{ numberInputs: 2.5 }, /Number of Inputs.*from 1 to 10.*got 2\.5/],
	[{ failureMode: 'bogus' }, /Failure Mode.*failFast or placeholder.*got "bogus"/],
	[{ binaryPropertyName: '  ' }, /Put Output File in Field.*must not be empty/],
	[{ binaryPropertyName: '__proto__' }, /Put Output File in Field.*"__proto__".*reserved/],
	[{ binaryPropertyName: 'constructor' }, /Put Output File in Field.*"constructor".*reserved/],
])('%j is refused naming the field', (parameters, message) => {
	expect(() => read(parameters)).toThrow(message);
});
