/**
 * The serial nodes' "identical inputs reuse the stored result" hint shows only while Cache is Reuse: its
 * displayCondition evaluated by n8n-workflow's own expression engine, as the editor evaluates it
 * (workflow.expression.getSimpleParameterValue on the node).
 */
import { Workflow, type INode, type INodeParameters, type INodeType, type INodeTypes, type NodeHint } from 'n8n-workflow';

import { FluxImage } from '../../nodes/FluxImage/FluxImage.node';
import { FluxVideo } from '../../nodes/FluxVideo/FluxVideo.node';
import { FluxConcurrentSubmit } from '../../nodes/FluxConcurrentSubmit/FluxConcurrentSubmit.node';
import { FluxVideoConcurrentSubmit } from '../../nodes/FluxVideoConcurrentSubmit/FluxVideoConcurrentSubmit.node';

function shown(nodeType: INodeType, hint: NodeHint, options: INodeParameters | undefined): unknown {
	const type = nodeType.description.name;
	const nodeTypes: INodeTypes = {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	};
	const node: INode = { id: '1', name: 'Node', type, typeVersion: 1, position: [0, 0], parameters: options === undefined ? {} : { options } };
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	return workflow.expression.getSimpleParameterValue(node, hint.displayCondition as string, 'internal', {});
}

describe.each([
	['FLUX 3 Image', new FluxImage()],
	['FLUX 3 Video', new FluxVideo()],
	['FLUX 3 Image Concurrent Submit', new FluxConcurrentSubmit()],
	['FLUX 3 Video Concurrent Submit', new FluxVideoConcurrentSubmit()],
])('%s: the stored-result hint', (_name, nodeType) => {
	const hint = (nodeType.description.hints ?? []).find((h) => h.message.startsWith('Identical inputs'));

	it.each([
		['no options set', undefined, true],
		['Cache: Reuse', { cache: 'reuse' }, true],
		['other options only', { timeoutMinutes: 5 }, true],
		['Cache: Refresh', { cache: 'refresh' }, false],
		['Cache: Off', { cache: 'off' }, false],
	])('%s → shown: %p', (_case, options, expected) => {
		expect(hint).toBeDefined();
		expect(shown(nodeType, hint as NodeHint, options)).toBe(expected);
	});
});
