/**
 * Submit → collect through n8n's real engine (n8n-core WorkflowExecute, in process)
 * against the relay simulator on 127.0.0.1.
 */
import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import { readPromptFromPng, type RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { poolFor } from '../../src/pool';
import { makeTaskItemJson } from '../../src/twin/taskItem';
import { collectNode, fluxCredentials, items, nodeTypes, runPromptBatch, submitNode, until } from './setup';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: { min: 5, max: 120, seed: 'collect' } }, (started) => (sim = started));

const trigger = manualTrigger('Trigger');

function run(nodes: Parameters<typeof runWorkflow>[0]['nodes'], connections: Parameters<typeof runWorkflow>[0]['connections'], triggerItems = items({})) {
	return runWorkflow({ nodes, connections, nodeTypes, credentials: fluxCredentials(sim), triggerItems });
}

describe('30 tasks from 3 submit nodes into a 3-input collector', () => {
	it('returns every slot’s own image, in slot order, paired back to its trigger item', async () => {
		const skus = Array.from({ length: 10 }, (_, i) => ({ sku: `SKU-${i}` }));
		const result = await run(
			[
				trigger,
				submitNode('Submit A', { prompt: '={{ "A " + $json.sku }}' }),
				submitNode('Submit B', { prompt: '={{ "B " + $json.sku }}' }),
				submitNode('Submit C', { prompt: '={{ "C " + $json.sku }}' }),
				collectNode('Collect', { numberInputs: 3 }),
			],
			connect(
				['Trigger', 'Submit A'],
				['Trigger', 'Submit B'],
				['Trigger', 'Submit C'],
				['Submit A', 'Collect', 0, 0],
				['Submit B', 'Collect', 0, 1],
				['Submit C', 'Collect', 0, 2],
			),
			items(...skus),
		);
		expect(result.error).toBeUndefined();
		expect(result.status).toBe('success');

		const images = result.outputOf('Collect', 0);
		expect(images).toHaveLength(30);
		const expectedPrompts = ['A', 'B', 'C'].flatMap((letter) => skus.map(({ sku }) => `${letter} ${sku}`));
		for (const [index, item] of images.entries()) {
			expect(item.json.slot).toBe(index + 1);
			expect(item.json.status).toBe('success');
			expect(item.binary?.data.mimeType).toBe('image/png');
			const png = await result.binaryBuffer(item, 'data');
			expect(readPromptFromPng(png)).toBe(expectedPrompts[index]);
			// Slot → task item (input, item) → trigger item: the same SKU.
			const input = Math.floor(index / 10);
			expect(item.pairedItem).toEqual({ item: index % 10, input });
			const submitName = ['Submit A', 'Submit B', 'Submit C'][input];
			const task = result.outputOf(submitName)[index % 10];
			expect(task.pairedItem).toEqual({ item: index % 10 });
		}
		// Every job was submitted exactly once.
		for (const prompt of expectedPrompts) expect(sim.log.submitsByPrompt.get(prompt)).toBe(1);

		const [report] = result.outputOf('Collect', 1);
		expect(report.json).toMatchObject({ total: 30, counts: { success: 30, failed: 0, skipped_error: 0, cancelled: 0 } });
		expect((report.json.slots as unknown[]).length).toBe(30);
		expect(poolFor('image').stats()).toMatchObject({ running: 0, queued: 0, admitted: 0 });
	});
});

describe('failure modes', () => {
	it('placeholder: the batch completes, the failed slot is red and the report names it without secrets', async () => {
		sim.setFault('moderated', { on: 'poll', finalStatus: 'Content Moderated' });
		const result = await runPromptBatch(sim, ['one', 'two moderated', 'three', 'four'], {
			collect: { failureMode: 'placeholder' },
		});
		expect(result.status).toBe('success');
		const images = result.outputOf('Collect', 0);
		expect(images.map((item) => item.json.status)).toEqual(['success', 'failed', 'success', 'success']);
		const placeholder = await result.binaryBuffer(images[1], 'data');
		expect(placeholder.readUInt32BE(16)).toBe(64); // IHDR width
		expect(placeholder.readUInt32BE(20)).toBe(64); // IHDR height
		expect(images[1].json.errorKind).toBe('content_moderated');

		const [report] = result.outputOf('Collect', 1);
		expect(report.json.counts).toEqual({ success: 3, failed: 1, skipped_error: 0, cancelled: 0 });
		const failedRow = (report.json.slots as Array<Record<string, unknown>>).find((row) => row.status === 'failed');
		expect(failedRow).toMatchObject({ slot: 2, errorKind: 'content_moderated' });
		expect(String(failedRow?.error)).toMatch(/moderat/i);

		const everything = JSON.stringify(result.data);
		expect(everything).not.toContain(sim.apiKey);
		expect(everything).not.toContain('/files/'); // signed sample URLs never reach the output
	});

	it('continue (using error output): failed slots go to the error output', async () => {
		sim.setFault('broken', { on: 'poll', finalStatus: 'Error' });
		const result = await runPromptBatch(sim, ['fine 1', 'broken 2', 'fine 3'], {
			collectSettings: { onError: 'continueErrorOutput' },
		});
		expect(result.status).toBe('success');
		expect(result.outputOf('Collect', 0).map((item) => item.json.slot)).toEqual([1, 3]);
		const errors = result.outputOf('Collect', 2);
		expect(errors).toHaveLength(1);
		expect(errors[0].json.error).toMatch(/^Slot 2 failed: .*generation failed/);
		expect(errors[0].pairedItem).toEqual({ item: 1, input: 0 });
		expect(result.outputOf('Collect', 1)[0].json.counts).toMatchObject({ success: 2, failed: 1 });
	});

	it('skip error: the slot is skipped_error with a white image and never fails the batch', async () => {
		sim.setFault('unlucky', { on: 'submit', status: 422, body: { detail: 'unprocessable' } });
		const result = await runPromptBatch(sim, ['lucky', 'unlucky'], { submit: { skipError: true } });
		expect(result.status).toBe('success');
		const images = result.outputOf('Collect', 0);
		expect(images.map((item) => item.json.status)).toEqual(['success', 'skipped_error']);
		expect(images[1].json.error).toMatch(/unprocessable|422|bad request/i);
		const white = await result.binaryBuffer(images[1], 'data');
		expect(white.readUInt32BE(16)).toBe(512);
		expect(result.outputOf('Collect', 1)[0].json.counts).toEqual({ success: 1, failed: 0, skipped_error: 1, cancelled: 0 });
	});
});

describe('continue on fail and re-runs', () => {
	it('continue (regular output): a failed slot stays in place with status failed', async () => {
		sim.setFault('broken', { on: 'poll', finalStatus: 'Error' });
		const result = await runPromptBatch(sim, ['broken 1', 'fine 2'], {
			collectSettings: { onError: 'continueRegularOutput' },
		});
		expect(result.status).toBe('success');
		const images = result.outputOf('Collect', 0);
		expect(images.map((item) => [item.json.slot, item.json.status])).toEqual([
			[1, 'failed'],
			[2, 'success'],
		]);
		expect(images[0].binary).toBeUndefined();
		expect(images[0].json.errorKind).toBe('generation_error');
	});

	it('re-running only the collector on the same tasks returns the same images without new jobs', async () => {
		const first = await runPromptBatch(sim, ['again 1', 'again 2']);
		expect(first.status).toBe('success');
		const tasks = first.outputOf('Submit').map((item) => ({ json: item.json }));
		const second = await run([trigger, collectNode('Collect', {})], connect(['Trigger', 'Collect']), tasks);
		expect(second.status).toBe('success');
		const images = second.outputOf('Collect', 0);
		expect(await Promise.all(images.map(async (item) => readPromptFromPng(await second.binaryBuffer(item))))).toEqual([
			'again 1',
			'again 2',
		]);
		expect(sim.log.submitsByPrompt.get('again 1')).toBe(1);
		expect(sim.log.submitsByPrompt.get('again 2')).toBe(1);
	});
});

describe('bad input', () => {
	it('an item that is not a task is an error naming input, item and slot', async () => {
		const result = await run(
			[trigger, submitNode('Submit', { prompt: 'ok' }), collectNode('Collect', { numberInputs: 2 })],
			connect(['Trigger', 'Submit'], ['Submit', 'Collect', 0, 0], ['Trigger', 'Collect', 0, 1]),
			items({ hello: 'world' }),
		);
		expect(result.status).toBe('error');
		expect(result.errorOf('Collect')?.message).toBe('The item at input 2, item 0 (slot 2) is not a task');
		// The submitted job was never collected; drain it so nothing is left behind for the next test.
		for (const item of result.outputOf('Submit')) await poolFor('image').wait(String(item.json.jobId));
	});

	it('31 tasks is a clear error that says how to split the batch', async () => {
		const result = await run(
			[trigger, submitNode('Submit', { prompt: '={{ "p" + $json.i }}' }), collectNode('Collect', {})],
			connect(['Trigger', 'Submit'], ['Submit', 'Collect']),
			items(...Array.from({ length: 31 }, (_, i) => ({ i }))),
		);
		expect(result.status).toBe('error');
		const error = result.errorOf('Collect');
		expect(error?.message).toMatch(/31 tasks .* at most 30/);
		expect(error?.description).toMatch(/Loop Over Items/);
		// The 31 jobs were admitted by the submit node; drain them so nothing is left behind.
		for (const item of result.outputOf('Submit')) await poolFor('image').wait(String(item.json.jobId));
	});

	it('an invalid parameter names the field and the item, and nothing is submitted', async () => {
		const result = await runPromptBatch(sim, ['fine', '   ']);
		expect(result.status).toBe('error');
		expect(result.errorOf('Submit')?.message).toMatch(/"Prompt".*\[item 1\]$/);
		expect(sim.log.submits).toHaveLength(0);
		expect(poolFor('image').stats().admitted).toBe(0);
	});

	it('a task of another kind is an error naming input, item and slot', async () => {
		const video = makeTaskItemJson({
			jobId: '00000000-0000-4000-8000-000000000001',
			kind: 'video',
			model: 'flux-3-video',
			node: 'Video Submit',
			submittedAt: new Date(),
		});
		const result = await run([trigger, collectNode('Collect', {})], connect(['Trigger', 'Collect']), items(video));
		expect(result.errorOf('Collect')?.message).toBe(
			'The item at input 1, item 0 (slot 1) is a video task; this collector collects image tasks',
		);
	});

	it('fail fast: an unknown task id fails the node naming input, item and slot', async () => {
		const fake = makeTaskItemJson({
			jobId: '00000000-0000-4000-8000-000000000000',
			kind: 'image',
			model: 'flux-3-image',
			node: 'Elsewhere',
			submittedAt: new Date(),
		});
		const result = await run([trigger, collectNode('Collect', {})], connect(['Trigger', 'Collect']), items(fake));
		expect(result.status).toBe('error');
		expect(result.errorOf('Collect')?.message).toMatch(
			/^Slot 1 failed: The task at input 1, item 0 \(slot 1\): Unknown job "00000000-0000-4000-8000-000000000000"/,
		);
	});
});

describe('cancellation', () => {
	it('cancelling mid-collect stops the wait, drops queued jobs and aborts requests in flight', async () => {
		sim.setLatency(60_000);
		const pool = poolFor('image');
		const controller = new AbortController();
		const running = runWorkflow({
			nodes: [trigger, submitNode('Submit', { prompt: '={{ "slow " + $json.i }}' }), collectNode('Collect', {})],
			connections: connect(['Trigger', 'Submit'], ['Submit', 'Collect']),
			nodeTypes,
			credentials: fluxCredentials(sim),
			triggerItems: items(...Array.from({ length: 5 }, (_, i) => ({ i }))),
			signal: controller.signal,
		});
		// Wait (by condition, not by time) until every task exists upstream and is being polled.
		await until(() => sim.log.tasks.size === 5, 'every task exists upstream');
		controller.abort();
		const result = await running;
		expect(result.status).toBe('canceled');
		// Let the aborted jobs settle, then nothing is left running or queued.
		await until(() => pool.stats().running === 0, 'the aborted jobs have settled');
		expect(pool.stats()).toMatchObject({ running: 0, queued: 0, admitted: 0 });
		const states = await Promise.all(
			result.outputOf('Submit').map(async (task) => (await pool.wait(String(task.json.jobId))).state),
		);
		expect(states).toEqual(Array(5).fill('cancelled'));
	});
});
