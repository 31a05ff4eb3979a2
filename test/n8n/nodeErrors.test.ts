import { NodeOperationError, type INode } from 'n8n-workflow';

import { toNodeError } from '../../src/n8n/nodeErrors';
import { FluxError } from '../../src/flux';
import { PoolCancelledError } from '../../src/pool';

const node: INode = { id: '1', name: 'Node', type: 'test.node', typeVersion: 1, position: [0, 0], parameters: {} };
const hints = { timeout: 'Raise the timeout.', ECONNRESET: 'The connection was reset.' };

describe('toNodeError (generic, hints from the caller)', () => {
	it('keeps an n8n error as it is', () => {
		const error = new NodeOperationError(node, 'already a node error', { itemIndex: 2 });
		expect(toNodeError(node, error, 5, hints)).toBe(error);
	});

	it('a cancelled job becomes "Execution canceled", also from another package copy (by name, not class)', () => {
		const ours = toNodeError(node, new PoolCancelledError('Job "x" was cancelled'), 1);
		class OtherCopyCancelled extends Error {
			override name = 'PoolCancelledError';
		}
		const theirs = toNodeError(node, new OtherCopyCancelled('Job "y" was cancelled'), 1);
		for (const error of [ours, theirs]) {
			expect(error.message).toBe('Execution canceled');
			expect(error.context.itemIndex).toBe(1);
		}
		expect(theirs.description).toBe('Job "y" was cancelled');
	});

	it('an error with a kind gets the hint for that kind, by value (not instanceof)', () => {
		const flux = toNodeError(node, new FluxError('timeout', 'FLUX job timed out'), 3, hints);
		expect(flux).toMatchObject({ message: 'FLUX job timed out', description: 'Raise the timeout.' });
		expect(flux.context.itemIndex).toBe(3);
		const foreign = Object.assign(new Error('timed out elsewhere'), { name: 'FluxError', kind: 'timeout' });
		expect(toNodeError(node, foreign, 0, hints).description).toBe('Raise the timeout.');
		expect(toNodeError(node, new FluxError('credits', 'no credits'), 0, hints).description).toBe('Error kind: credits');
		expect(toNodeError(node, new FluxError('timeout', 'x'), 0).description).toBe('Error kind: timeout');
	});

	it('anything else is redacted, with a hint by code when there is one', () => {
		const error = Object.assign(new Error('reset by https://relay.example/bfl?key=sk-secret-123 Bearer sk-secret-123'), {
			code: 'ECONNRESET',
		});
		const nodeError = toNodeError(node, error, 4, hints);
		expect(nodeError.message).not.toContain('sk-secret-123');
		expect(nodeError.message).not.toContain('relay.example');
		expect(nodeError.description).toBe('The connection was reset.');
		expect(toNodeError(node, 'a plain string', 0).message).toBe('a plain string');
	});
});
