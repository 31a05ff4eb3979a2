/**
 * Hints that fit, through n8n's real engine (the run data n8n's editor reads its execution hints from):
 * a collector run that returns with failed or skipped slots says so, how many and where to read why; the
 * submit node's "connect a collector" hint appears only when no collector is downstream, and never above an error.
 */
import '../engine/harness'; // first: it prepares jest to load n8n-core
import type { NodeExecutionHint } from 'n8n-workflow';

import { type RelaySimulator } from '../../relay-sim';
import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { poolFor } from '../../src/pool';
import { fluxCredentials, items, nodeTypes, runPromptBatch, submitNode, until, collectNode } from './setup';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 5 }, (started) => (sim = started));

beforeEach(() => sim.setFault('refused', { on: 'poll', finalStatus: 'Content Moderated' }));

afterEach(async () => {
	await until(() => poolFor('image').stats().admitted === 0, 'every job has ended');
});

type Run = Awaited<ReturnType<typeof runPromptBatch>>;
const hintsOf = (run: Run, node: string): NodeExecutionHint[] => (run.runData[node]?.[0]?.hints ?? []) as NodeExecutionHint[];

describe('the collector', () => {
	it('Placeholder with failed slots: a warning says how many failed, what stands in their place and that the Report says why', async () => {
		const run = await runPromptBatch(sim, ['a fox', 'refused owl', 'a cat', 'refused bat'], { collect: { failureMode: 'placeholder' } });
		expect(run.status).toBe('success');
		expect(hintsOf(run, 'Collect')).toEqual([
			{
				message:
					'2 of 4 slots failed: each keeps its place in Images with status failed and a red 64×64 image. The Report output says why (slots → error).',
				type: 'warning',
				location: 'outputPane',
			},
		]);
	});

	it('every slot succeeded: no hint', async () => {
		const run = await runPromptBatch(sim, ['a fox', 'a cat'], { collect: { failureMode: 'placeholder' } });
		expect(hintsOf(run, 'Collect')).toEqual([]);
	});

	it('Skip Error: the stand-in images are counted, not passed off as success', async () => {
		const run = await runPromptBatch(sim, ['refused owl', 'a cat'], { submit: { skipError: true } });
		expect(run.outputOf('Collect', 1)[0].json.counts).toMatchObject({ success: 1, skipped_error: 1 });
		expect(hintsOf(run, 'Collect').map((hint) => hint.message)).toEqual([
			'1 of 2 slots hit an error that Skip Error turned into a stand-in image (status skipped_error). The Report output says why (slots → error).',
		]);
	});

	it('error output: the failed slots are said to have left through it', async () => {
		const run = await runPromptBatch(sim, ['refused owl', 'a cat'], { collectSettings: { onError: 'continueErrorOutput' } });
		expect(hintsOf(run, 'Collect').map((hint) => hint.message)).toEqual([
			'1 of 2 slots failed: they left through the error output, not Images. The Report output says why (slots → error).',
		]);
	});

	it('fail fast: the node fails, and no hint stands above the error', async () => {
		const run = await runPromptBatch(sim, ['refused owl', 'a cat']);
		expect(run.status).toBe('error');
		expect(hintsOf(run, 'Collect')).toEqual([]);
	});
});

describe('the submit node’s "connect a collector" hint', () => {
	const submitAlone = async (prompts: string[], extra: Parameters<typeof submitNode>[2] = {}, collector?: 'enabled' | 'disabled') =>
		await runWorkflow({
			nodes: [
				manualTrigger('Trigger'),
				submitNode('Submit', { prompt: '={{ $json.prompt }}' }, extra),
				...(collector ? [collectNode('Collect', {}, { disabled: collector === 'disabled' })] : []),
			],
			connections: collector ? connect(['Trigger', 'Submit'], ['Submit', 'Collect']) : connect(['Trigger', 'Submit']),
			nodeTypes,
			credentials: fluxCredentials(sim),
			triggerItems: items(...prompts.map((prompt) => ({ prompt }))),
		});

	it('shows when no collector is downstream', async () => {
		const run = await submitAlone(['a fox']);
		expect(hintsOf(run, 'Submit')).toEqual([
			{
				message:
					'This node outputs tasks, not images, and no Concurrent Collect Images node is connected after it. Connect one: it waits for the jobs and returns the images in order.',
				type: 'warning',
				location: 'outputPane',
			},
		]);
	});

	it('shows when the only collector downstream is disabled', async () => {
		const run = await submitAlone(['a fox'], {}, 'disabled');
		expect(hintsOf(run, 'Submit').map((hint) => hint.message)).toEqual([expect.stringMatching(/no Concurrent Collect Images node/)]);
	});

	it('does not show when a collector is connected', async () => {
		const run = await runPromptBatch(sim, ['a fox']);
		expect(run.status).toBe('success');
		expect(hintsOf(run, 'Submit')).toEqual([]);
	});

	it('does not show above an error', async () => {
		const run = await submitAlone(['   ']);
		expect(run.status).toBe('error');
		expect(run.errorOf('Submit')?.message).toMatch(/^Invalid parameter "Prompt"/);
		expect(hintsOf(run, 'Submit')).toEqual([]);
	});
});
