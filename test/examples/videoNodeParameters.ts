/** Shared by the video examples' static tests: every node is built in or ours, with only parameters ours have. */
import { ConcurrentCollectVideos } from '../../nodes/ConcurrentCollectVideos/ConcurrentCollectVideos.node';
import { FluxVideoConcurrentSubmit } from '../../nodes/FluxVideoConcurrentSubmit/FluxVideoConcurrentSubmit.node';
import { EXAMPLE_CREDENTIAL_NAME, VIDEO_NODE_TYPES } from '../../scripts/examples';

type ExampleNode = { type: string; parameters?: Record<string, unknown>; credentials?: Record<string, { name: string }> };

export function expectKnownVideoParameters(workflow: { nodes: ExampleNode[] }): void {
	const known: Record<string, Set<string>> = {
		[VIDEO_NODE_TYPES.submit]: new Set(new FluxVideoConcurrentSubmit().description.properties.map((p) => p.name)),
		[VIDEO_NODE_TYPES.collect]: new Set(new ConcurrentCollectVideos().description.properties.map((p) => p.name)),
	};
	for (const node of workflow.nodes) {
		const names = known[node.type];
		if (!names) {
			expect(node.type).toMatch(/^n8n-nodes-base\./);
			continue;
		}
		expect(node.credentials?.fluxApi?.name ?? EXAMPLE_CREDENTIAL_NAME).toBe(EXAMPLE_CREDENTIAL_NAME);
		for (const parameter of Object.keys(node.parameters ?? {})) expect(names).toContain(parameter);
	}
}
