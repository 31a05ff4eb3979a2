/**
 * With a narrow pool the submit node waits at the capacity gate while its jobs
 * finish, and their results wait for the collector. The memory bound (COMFLY_RESULT_MAX_MB)
 * must not drop them: every paid result is delivered. Once delivered, it may be dropped; a
 * collector run on such a dropped (expired) task gets a failed slot, never a failed batch.
 * (Results in memory: Cache Off. With the result store on, the pool keeps only references; see store.engine.test.ts.)
 */
import '../engine/harness'; // first: it prepares jest to load n8n-core
import { LoggerProxy, type INodeExecutionData } from 'n8n-workflow';

import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import { readPromptFromPng, type RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { poolFor } from '../../src/pool';
import { collectNode, fluxCredentials, nodeTypes, runPromptBatch } from './setup';

// Read once, when the pool set is first used (lazily, inside the first run below).
process.env.COMFLY_IMAGE_CONCURRENCY = '2';
process.env.COMFLY_IMAGE_PENDING = '0';
process.env.COMFLY_RESULT_MAX_MB = '1';

const IMAGE_BYTES = 300 * 1024;
const MB = 1024 * 1024;

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 5, imageBytes: IMAGE_BYTES }, (started) => (sim = started));

const prompts = Array.from({ length: 8 }, (_, i) => `bounded ${i + 1}`);
// The package logs through n8n's LoggerProxy: a fake logger collects the warnings.
const warn = jest.fn();
beforeAll(() => LoggerProxy.init({ error: jest.fn(), warn, info: jest.fn(), debug: jest.fn() }));

/** Runs the collector alone on task items, as a re-run of only the collector would. */
async function collectAgain(tasks: INodeExecutionData[], parameters = {}, settings = {}) {
	return await runWorkflow({
		nodes: [manualTrigger('Trigger'), collectNode('Collect', parameters, settings)],
		connections: connect(['Trigger', 'Collect']),
		nodeTypes,
		credentials: fluxCredentials(sim),
		triggerItems: tasks.map((task) => ({ json: task.json })),
	});
}

let tasks: INodeExecutionData[] = [];

it('2 workers, 0 pending, a 1 MB bound, 8 × 300 KB images: all 8 are delivered', async () => {
	// Cache: Off keeps the results in memory only (with the store on, the pool holds mere references).
	const result = await runPromptBatch(sim, prompts, { submit: { options: { cache: 'off' } } });
	expect(result.error).toBeUndefined();
	expect(result.status).toBe('success');
	const pool = poolFor('image');
	expect(pool.workers).toBe(2);

	const images = result.outputOf('Collect', 0);
	expect(images.map((item) => item.json.status)).toEqual(Array(8).fill('success'));
	for (const [index, item] of images.entries()) {
		const png = await result.binaryBuffer(item, 'data');
		expect(png.length).toBe(IMAGE_BYTES);
		expect(readPromptFromPng(png)).toBe(prompts[index]);
	}
	for (const prompt of prompts) expect(sim.log.submitsByPrompt.get(prompt)).toBe(1);
	// Uncollected results above the bound were kept, with one warning; once delivered, the bound applies again.
	expect(warn.mock.calls.filter(([message]) => /not yet collected/.test(String(message)))).toHaveLength(1);
	expect(pool.stats().retainedBytes).toBeLessThanOrEqual(1 * MB);
	tasks = result.outputOf('Submit').map((item) => ({ json: item.json }));
});

describe('a collector run on tasks whose delivered results were dropped', () => {
	// 3 × 300 KB fit in 1 MB: the last three delivered stay, the first five were dropped.
	const expiredSlots = [1, 2, 3, 4, 5];

	it('placeholder: each expired slot is a failed slot naming input, item and slot; the others deliver', async () => {
		const result = await collectAgain(tasks, { failureMode: 'placeholder' });
		expect(result.status).toBe('success');
		const images = result.outputOf('Collect', 0);
		expect(images.map((item) => item.json.status)).toEqual([...Array(5).fill('failed'), ...Array(3).fill('success')]);
		for (const slot of expiredSlots) {
			const row = images[slot - 1].json;
			expect(row.errorKind).toBe('expired');
			expect(row.error).toMatch(new RegExp(`^The task at input 1, item ${slot - 1} \\(slot ${slot}\\): Job ".*" has expired`));
			expect((await result.binaryBuffer(images[slot - 1], 'data')).readUInt32BE(16)).toBe(64); // red placeholder
		}
		expect(readPromptFromPng(await result.binaryBuffer(images[7], 'data'))).toBe(prompts[7]);
		expect(result.outputOf('Collect', 1)[0].json.counts).toEqual({ success: 3, failed: 5, skipped_error: 0, cancelled: 0 });
	});

	it('error output: the expired slots go there, paired to their task items', async () => {
		const result = await collectAgain(tasks, {}, { onError: 'continueErrorOutput' });
		expect(result.status).toBe('success');
		expect(result.outputOf('Collect', 0).map((item) => item.json.slot)).toEqual([6, 7, 8]);
		const errors = result.outputOf('Collect', 2);
		expect(errors.map((item) => item.pairedItem)).toEqual(expiredSlots.map((slot) => ({ item: slot - 1, input: 0 })));
		expect(errors[0].json.error).toMatch(/^Slot 1 failed: The task at input 1, item 0 \(slot 1\): Job ".*" has expired/);
	});

	it('fail fast: the node fails at the first expired slot it learns of, naming its input, item and slot', async () => {
		const result = await collectAgain(tasks);
		expect(result.status).toBe('error');
		// The five expired slots are resolved at once (each through the journal): any of them may be the first.
		const match = /^Slot (\d+) failed: The task at input 1, item (\d+) \(slot (\d+)\): Job ".*" has expired/.exec(result.errorOf('Collect')?.message ?? '');
		expect(match).not.toBeNull();
		const [, slot, item, named] = (match as RegExpExecArray).map(Number);
		expect(expiredSlots).toContain(slot);
		expect([item, named]).toEqual([slot - 1, slot]);
	});
});
