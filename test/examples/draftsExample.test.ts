/** Static checks of examples/flux-3-video-drafts.json (fast, no n8n); test/e2e/bflApi.test.ts runs it in a real n8n. */
import { DRAFTS_EXAMPLE, VIDEO_NODE_TYPES, loadDraftsExample, withOutputFolder } from '../../scripts/examples';
import { parseFluxVideoParameters } from '../../src/fluxN8n/fluxParameters';
import { expectKnownVideoParameters } from './videoNodeParameters';

const workflow = loadDraftsExample();
const named = (name: string) => {
	const node = workflow.nodes.find((n) => n.name === name);
	if (!node) throw new Error(`no node ${name}`);
	return node;
};

it('uses only parameters the video submit and collector have', () => expectKnownVideoParameters(workflow));

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
