/** Static checks of examples/flux-3-video-sku-clips.json (fast, no n8n); test/e2e/video.test.ts runs it in a real n8n. */
import { EXAMPLE_CREDENTIAL_NAME, VIDEO_EXAMPLE, VIDEO_NODE_TYPES, loadVideoExample, withOutputFolder } from '../../scripts/examples';
import { parseFluxVideoParameters } from '../../src/fluxN8n/fluxParameters';
import { expectKnownVideoParameters } from './videoNodeParameters';

const workflow = loadVideoExample();
const byType = (type: string) => workflow.nodes.filter((n) => n.type === type);

it('uses the video submit and collector with parameters they have, and valid i2v parameters', () => {
	expectKnownVideoParameters(workflow);
	const [submit] = byType(VIDEO_NODE_TYPES.submit);
	expect(submit.credentials?.fluxApi.name).toBe(EXAMPLE_CREDENTIAL_NAME);
	expect(parseFluxVideoParameters({ ...submit.parameters, prompt: 'a clip' })).toMatchObject({ mode: 'i2v', duration: 5, keyframes: [{ source: { kind: 'binary', property: 'data' } }] });
	expect(byType(VIDEO_NODE_TYPES.collect).map((n) => n.name)).toEqual([VIDEO_EXAMPLE.collector]);
	expect(workflow.nodes.map((n) => n.name)).toContain(VIDEO_EXAMPLE.writer);
});

it('sends the SKUs through one collector (at most 10 slots) and lets the demo set the output folder', () => {
	const code = String(workflow.nodes.find((n) => n.name === 'SKUs')?.parameters?.jsCode);
	const count = Number(/const count = (\d+);/.exec(code)?.[1]);
	expect(count).toBeGreaterThan(1);
	expect(count).toBeLessThanOrEqual(10);
	const moved = withOutputFolder(workflow, '/tmp/clips');
	expect(JSON.stringify(moved)).toContain('/tmp/clips');
});

it('a failed clip (placeholder slot: no binary, there is no placeholder clip) does not stop the other clips being written', () => {
	const collector = workflow.nodes.find((n) => n.name === VIDEO_EXAMPLE.collector);
	const writer = workflow.nodes.find((n) => n.name === VIDEO_EXAMPLE.writer) as { onError?: string };
	expect(collector?.parameters?.failureMode).toBe('placeholder');
	expect(writer.onError).toBe('continueRegularOutput');
});
