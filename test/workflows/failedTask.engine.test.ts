/**
 * With "On Error: Continue" on the submit node, an item it could not submit
 * reaches the collector as a failed task: a failed slot with its reason, same numbering,
 * pairing kept, handled by Failure Mode like any other failed slot.
 */
import '../engine/harness'; // first: it prepares jest to load n8n-core
import { type RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { poolFor } from '../../src/pool';
import { readFailedTaskItemJson } from '../../src/twin/taskItem';
import { runPromptBatch, until } from './setup';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 5 }, (started) => (sim = started));

const prompts = ['good 1', '   ', 'good 3'];
const continueRegular = { submitSettings: { onError: 'continueRegularOutput' as const } };
const reason = /^The submit node could not submit the item at input 1, item 1 \(slot 2\): Invalid parameter "Prompt"/;

afterEach(async () => {
	// Nothing is left queued or running behind a test.
	await until(() => poolFor('image').stats().admitted === 0, 'every job has ended');
});

it('placeholder: the bad item is a failed slot with its reason, in its place, paired to its item', async () => {
	const result = await runPromptBatch(sim, prompts, { ...continueRegular, collect: { failureMode: 'placeholder' } });
	expect(result.status).toBe('success');

	const failedTask = readFailedTaskItemJson(result.outputOf('Submit')[1].json);
	expect(failedTask).toMatchObject({ kind: 'image', node: 'Submit', error: expect.stringMatching(/"Prompt"/) });
	expect(JSON.stringify(result.outputOf('Submit'))).not.toContain(sim.apiKey);

	const images = result.outputOf('Collect', 0);
	expect(images.map((item) => item.json.status)).toEqual(['success', 'failed', 'success']);
	expect(images.map((item) => item.pairedItem)).toEqual([0, 1, 2].map((item) => ({ item, input: 0 })));
	expect(images[1].json).toMatchObject({ slot: 2, input: 1, item: 1, errorKind: 'submit_failed', attempts: 0 });
	expect(images[1].json.error).toMatch(reason);
	expect(images[1].json.jobId).toBeUndefined();
	expect((await result.binaryBuffer(images[1], 'data')).readUInt32BE(16)).toBe(64); // red placeholder
	expect(result.outputOf('Collect', 1)[0].json.counts).toEqual({ success: 2, failed: 1, skipped_error: 0, cancelled: 0 });
	expect(sim.log.submits.map((submit) => submit.prompt).sort()).toEqual(['good 1', 'good 3']);
});

it('fail fast: the node fails naming the slot', async () => {
	const result = await runPromptBatch(sim, prompts, continueRegular);
	expect(result.status).toBe('error');
	const error = result.errorOf('Collect');
	expect(error?.message).toMatch(/^Slot 2 failed: The submit node could not submit the item at input 1, item 1 \(slot 2\)/);
	expect(error?.description).toMatch(/Placeholder/);
});

it('collector error output: the failed slot goes there, the others to the images', async () => {
	const result = await runPromptBatch(sim, prompts, {
		...continueRegular,
		collectSettings: { onError: 'continueErrorOutput' },
	});
	expect(result.status).toBe('success');
	expect(result.outputOf('Collect', 0).map((item) => item.json.slot)).toEqual([1, 3]);
	const errors = result.outputOf('Collect', 2);
	expect(errors).toHaveLength(1);
	expect(errors[0].pairedItem).toEqual({ item: 1, input: 0 });
	expect(errors[0].json.error).toMatch(/^Slot 2 failed: The submit node could not submit/);
});

it('submit "continue (using error output)" still routes the bad item to the submit node’s error output', async () => {
	const result = await runPromptBatch(sim, prompts, { submitSettings: { onError: 'continueErrorOutput' } });
	expect(result.status).toBe('success');
	expect(result.outputOf('Submit', 1)).toHaveLength(1);
	expect(result.outputOf('Submit', 1)[0].json.error).toMatch(/"Prompt"/);
	expect(result.outputOf('Collect', 0).map((item) => item.json.status)).toEqual(['success', 'success']);
});
