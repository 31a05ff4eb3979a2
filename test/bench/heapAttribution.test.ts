/**
 * The allocation attribution of bench/heapProfile.ts (bench/heapAttribution.ts): a V8 sampling heap profile's
 * bytes, each sample's size given to its node's bucket as the CPU attribution gives time (package frames by area,
 * n8n/Node frames in "incl" to their package caller); the samples of a node the tree lacks counted apart; a body that
 * is not a heap profile refused by name.
 */
import { attributeAllocations, parseHeapProfile, type HeapSamplingProfile } from '../../bench/heapAttribution';

const PKG = '/home/u/.n8n/nodes/node_modules/n8n-nodes-flux-concurrent/dist';
const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0, columnNumber: 0, scriptId: 0 });

/** (root) → readItem (package) → getNodeParameter (n8n); (root) → appendToFile (package, journal) → Buffer.from (node); (root) → typeorm (n8n). */
function profile(samples: HeapSamplingProfile['samples']): HeapSamplingProfile {
	return {
		head: {
			id: 1,
			callFrame: frame('(root)', ''),
			children: [
				{
					id: 2,
					callFrame: frame('readItem', `file://${PKG}/src/fluxN8n/fluxParameterReader.js`),
					children: [{ id: 3, callFrame: frame('getNodeParameter', 'file:///x/node_modules/n8n-core/dist/execution-engine/node-execution-context.js'), children: [] }],
				},
				{
					id: 4,
					callFrame: frame('appendToFile', `file://${PKG}/src/store/appendFiles.js`),
					children: [{ id: 5, callFrame: frame('from', 'node:buffer'), children: [] }],
				},
				{ id: 6, callFrame: frame('query', 'file:///x/node_modules/@n8n/typeorm/query-runner.js'), children: [] },
			],
		},
		samples,
	};
}

describe('heap attribution', () => {
	const where = { name: 'n8n-nodes-flux-concurrent', dependencies: ['undici'] };
	const samples = [
		{ size: 4096, nodeId: 5 },
		{ size: 1000, nodeId: 2 },
		{ size: 3000, nodeId: 3 },
		{ size: 7000, nodeId: 6 },
		{ size: 500, nodeId: 4 },
	];

	it('gives every sampled byte to its bucket, own and incl.', () => {
		const a = attributeAllocations(profile(samples), where);
		expect(a.bytes).toBe(15_596);
		expect(a.sampledUs).toBe(15_596);
		expect(a.own.prepare).toBe(1000);
		expect(a.incl.prepare).toBe(4000); // with n8n's getNodeParameter under it
		expect(a.own.journal).toBe(500);
		expect(a.incl.journal).toBe(4596); // with node's Buffer.from under it
		expect(a.own.n8n).toBe(10_000); // getNodeParameter and typeorm
		expect(a.incl.n8n).toBe(7000); // typeorm only: no package caller
		expect(a.own.node).toBe(4096);
		expect(a.incl.node).toBe(0);
	});

	it('lists the package functions by bytes incl. their calls', () => {
		const a = attributeAllocations(profile(samples), where);
		expect(a.functions.map((fn) => [fn.functionName, fn.ownUs, fn.inclUs])).toEqual([
			['appendToFile', 500, 4596],
			['readItem', 1000, 4000],
		]);
	});

	it('counts the samples of a node the tree lacks apart, unattributed', () => {
		const a = attributeAllocations(profile([...samples, { size: 99_999, nodeId: 42 }]), where);
		expect(a.bytes).toBe(15_596);
		expect(a.strayBytes).toBe(99_999);
		expect(attributeAllocations(profile(samples), where).strayBytes).toBe(0);
	});

	it('refuses a body that is not a sampling heap profile, naming the field', () => {
		expect(() => parseHeapProfile({ head: { id: 1 }, samples: [] }, 'the profile')).toThrow(/the profile is not a V8 sampling heap profile: head\.callFrame/);
		expect(parseHeapProfile(profile(samples), 'the profile').samples).toHaveLength(5);
	});
});
