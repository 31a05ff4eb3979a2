/** Static checks of examples/flux-3-video-drafts.json (fast, no n8n); test/e2e/bflApi.test.ts runs it in a real n8n. */
import { ConcurrentCollectVideos } from '../../nodes/ConcurrentCollectVideos/ConcurrentCollectVideos.node';
import { FluxVideoConcurrentSubmit } from '../../nodes/FluxVideoConcurrentSubmit/FluxVideoConcurrentSubmit.node';
import { DRAFTS_EXAMPLE, EXAMPLE_CREDENTIAL_NAME, VIDEO_NODE_TYPES, loadDraftsExample, withOutputFolder } from '../../scripts/examples';
import { parseFluxVideoParameters } from '../../src/fluxN8n/fluxParameters';

const workflow = loadDraftsExample();
const named = (name: string) => {
	const node = workflow.nodes.find((n) => n.name === name);
	if (!node) throw new Error(`no node ${name}`);
	return node;
};

it('uses only parameters the video submit and collector have', () => {
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
});

it('drafts every idea (Text to Video, Draft on), then enhances the chosen drafts from their caches alone', () => {
	expect(parseFluxVideoParameters({ ...named('Submit Drafts').parameters, prompt: 'a clip' })).toMatchObject({ mode: 't2v', draft: true, duration: 5 });
	const enhance = parseFluxVideoParameters({ ...named('Enhance Chosen').parameters });
	expect(enhance).toMatchObject({ mode: 'draft_enhance', draftCache: { kind: 'binary', property: 'draftCache' } });
	const code = String(named(DRAFTS_EXAMPLE.ideas).parameters?.jsCode);
	const ideas = new Function(code)() as Array<{ json: { keep: boolean } }>;
	expect(ideas).toHaveLength(10);
	expect(ideas.filter((i) => i.json.keep).length).toBeGreaterThan(0);
	expect(JSON.stringify(withOutputFolder(workflow, '/tmp/drafts'))).toContain('/tmp/drafts');
	for (const collector of [DRAFTS_EXAMPLE.drafts, DRAFTS_EXAMPLE.finals]) expect(named(collector).type).toBe(VIDEO_NODE_TYPES.collect);
	expect(workflow.connections).toMatchObject({ [DRAFTS_EXAMPLE.drafts]: { main: [[{ node: 'Write Drafts' }, { node: 'Choose' }]] }, Choose: { main: [[{ node: 'Enhance Chosen' }]] } });
});
