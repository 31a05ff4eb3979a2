/**
 * In the BFL style the account limit starts at the model's own (its descriptor: 5 active FLUX 3 Video tasks), so a
 * first wave of 8 clips against BFL's cap (the simulator's account-cap control) collects no 429; a relay sets its
 * own limits, so there the limit starts at the pool's workers and learns the cap from 429s.
 */
import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import { readPromptFromMp4, type RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { fluxCredentials, items } from './setup';
import { videoCollectNode, videoNodeTypes, videoSubmitNode } from './videoSetup';

let sim: RelaySimulator;
// Tasks live 1.5–2 s: the eight submits of a wave overlap even on a loaded machine (20–80 ms tasks could end before the sixth was sent).
useRelaySimulator({ latencyMs: { min: 1500, max: 2000, seed: 'cap' }, maxActiveVideoTasks: 5 }, (started) => (sim = started));

async function firstWave(style: 'relay' | 'bfl', prompts: string[]) {
	return await runWorkflow({
		nodes: [manualTrigger('Trigger'), videoSubmitNode('Submit', { prompt: '={{ $json.prompt }}' }), videoCollectNode('Collect', {})],
		connections: connect(['Trigger', 'Submit'], ['Submit', 'Collect']),
		nodeTypes: videoNodeTypes,
		credentials: fluxCredentials(sim, style),
		triggerItems: items(...prompts.map((prompt) => ({ prompt }))),
	});
}

it('BFL style: 8 clips against the 5-active cap, no 429, never more than 5 active, each paid once', async () => {
	const prompts = Array.from({ length: 8 }, (_, i) => `capped clip ${i}`);
	const result = await firstWave('bfl', prompts);
	expect(result.status).toBe('success');
	const clips = result.outputOf('Collect', 0);
	for (const [i, clip] of clips.entries()) expect(readPromptFromMp4(await result.binaryBuffer(clip))).toBe(prompts[i]);
	expect(sim.log.submits.map((s) => s.status)).toEqual(Array(8).fill(200));
	expect(sim.log.peakActiveVideoTasks).toBe(5);
});

it('relay style: the limit starts at the workers, so the same wave meets the cap (429) and waits it out', async () => {
	const prompts = Array.from({ length: 8 }, (_, i) => `relay clip ${i}`);
	const result = await firstWave('relay', prompts);
	expect(result.status).toBe('success');
	expect(sim.log.submits.some((s) => s.status === 429)).toBe(true);
	expect(sim.log.submits.filter((s) => s.status === 200)).toHaveLength(8);
});
