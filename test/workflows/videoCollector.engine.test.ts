/**
 * A second collector is a second factory call, not a copy of src/collect.
 * A fake video collector (10 slots, a stream per result, no binary for a failed slot)
 * runs through n8n's real engine on jobs in the shared video pool.
 */
import '../engine/harness'; // first: it prepares jest to load n8n-core
import { Readable } from 'node:stream';

import type { INodeExecutionData } from 'n8n-workflow';

import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import { makeConcurrentCollector, type CollectableResult } from '../../src/collect';
import { poolFor } from '../../src/pool';
import { makeFailedTaskItemJson, makeTaskItemJson } from '../../src/twin/taskItem';
import { collectNode, items } from './setup';

interface FakeVideoResult extends CollectableResult {
	frames: string;
}

const FakeVideoCollect = makeConcurrentCollector<FakeVideoResult>({
	identity: {
		name: 'fakeVideoCollect',
		displayName: 'Concurrent Collect Videos',
		description: 'Wait for up to 10 concurrent video tasks and return their videos in slot order',
		icon: 'file:fakeVideoCollect.svg',
		defaultName: 'Concurrent Collect Videos',
		noun: { one: 'video', many: 'videos' },
		submitNodeName: 'Fake Video Concurrent Submit',
	},
	kind: 'video',
	maxSlots: 10,
	toBinary: async (ctx, result, fileBase) => ({
		result: await ctx.helpers.prepareBinaryData(Readable.from([Buffer.from(result.frames)]), `${fileBase}.mp4`, 'video/mp4'),
	}),
	redact: (text) => text.replace(/secret-\w+/g, '[REDACTED]'),
});

const TYPE = 'test.fakeVideoCollect';
const nodeTypes = { [TYPE]: new FakeVideoCollect() };

/** Video jobs in the shared pool; a prompt containing "fail" fails with a secret in its message. */
async function submitVideos(prompts: readonly string[]): Promise<INodeExecutionData[]> {
	const pool = poolFor('video');
	const tasks = await Promise.all(
		prompts.map(async (prompt) => {
			const jobId = await pool.submit<FakeVideoResult>(async () => {
				if (prompt.includes('fail')) throw new Error(`upstream said no to secret-abc123 (${prompt})`);
				return { outcome: 'success', frames: `frames of ${prompt}` };
			});
			return makeTaskItemJson({ jobId, kind: 'video', model: 'fake-video', node: 'Video Submit', submittedAt: new Date() });
		}),
	);
	return items(...tasks);
}

async function collect(tasks: INodeExecutionData[], parameters = {}) {
	return await runWorkflow({
		nodes: [manualTrigger('Trigger'), collectNode('Collect', parameters, { type: TYPE })],
		connections: connect(['Trigger', 'Collect']),
		nodeTypes,
		triggerItems: tasks,
	});
}

describe('a second collector made by the factory', () => {
	it('has its own identity, 10 slots and no failed-slot binary; the internal parameter names stay', () => {
		const { description } = new FakeVideoCollect();
		expect(description).toMatchObject({ name: 'fakeVideoCollect', outputNames: ['Videos', 'Report'] });
		expect(description.properties.map((property) => property.name)).toEqual([
			'notice',
			'numberInputs',
			'failureMode',
			'binaryPropertyName',
		]);
		expect(description.properties[0].displayName).toMatch(/at most 10 in all/);
		expect(JSON.stringify(description.properties[2])).toMatch(/keeps its place with no video/);
	});

	it('delivers 10 videos in slot order; a failed slot keeps its place with no binary', async () => {
		const prompts = Array.from({ length: 10 }, (_, i) => (i === 3 ? 'clip 4 fail' : `clip ${i + 1}`));
		const tasks = await submitVideos(prompts);
		const result = await collect(tasks, { failureMode: 'placeholder' });
		expect(result.status).toBe('success');
		const videos = result.outputOf('Collect', 0);
		expect(videos.map((item) => item.json.slot)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
		for (const [index, item] of videos.entries()) {
			expect(item.pairedItem).toEqual({ item: index, input: 0 });
			if (index === 3) continue;
			expect(item.binary?.data.mimeType).toBe('video/mp4');
			expect((await result.binaryBuffer(item, 'data')).toString()).toBe(`frames of ${prompts[index]}`);
		}
		expect(videos[3].json).toMatchObject({ status: 'failed' });
		expect(videos[3].json.error).toBe('upstream said no to [REDACTED] (clip 4 fail)');
		expect(videos[3].binary).toBeUndefined();
		expect(result.outputOf('Collect', 1)[0].json.counts).toEqual({ success: 9, failed: 1, skipped_error: 0, cancelled: 0 });
	});

	it('refuses 11 tasks, naming its own limit and pool', async () => {
		const tasks = await submitVideos(Array.from({ length: 11 }, (_, i) => `many ${i + 1}`));
		const result = await collect(tasks);
		expect(result.errorOf('Collect')?.message).toBe('11 tasks reached this collector, but one Concurrent Collect Videos takes at most 10');
		expect(result.errorOf('Collect')?.description).toMatch(/COMFLY_VIDEO_CONCURRENCY/);
		for (const task of tasks) await poolFor('video').wait(String(task.json.jobId));
	});

	it('takes failed video tasks as failed slots and refuses image tasks', async () => {
		const failed = makeFailedTaskItemJson({ kind: 'video', model: 'fake-video', node: 'Video Submit', error: 'bad prompt' });
		const [good] = await submitVideos(['fine']);
		const result = await collect([good, { json: failed }], { failureMode: 'placeholder' });
		expect(result.outputOf('Collect', 0).map((item) => [item.json.status, item.json.errorKind])).toEqual([
			['success', undefined],
			['failed', 'submit_failed'],
		]);

		const image = makeTaskItemJson({ jobId: 'x', kind: 'image', model: 'flux', node: 'Submit', submittedAt: new Date() });
		const refused = await collect(items(image));
		expect(refused.errorOf('Collect')?.message).toBe(
			'The item at input 1, item 0 (slot 1) is an image task; this collector collects video tasks',
		);
	});
});
