/**
 * FLUX 3 Video Concurrent Submit → Concurrent Collect Videos through n8n's real engine, against the simulator
 * with BFL's 5-active video cap: slot order, pairing, failure modes, the report, the error output, kinds.
 */
import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import { readPromptFromMp4, type RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { poolFor } from '../../src/pool';
import { makeTaskItemJson } from '../../src/twin/taskItem';
import { collectNode, fluxCredentials, items, submitNode, until } from './setup';
import { runVideoBatch, videoCollectNode, videoNodeTypes, videoSubmitNode } from './videoSetup';

let sim: RelaySimulator;
// The simulator's default video cap is BFL's: 5 active generations; jittered latencies finish out of order.
const LATENCY = { min: 20, max: 150, seed: 'video' };
// The simulator's clock runs `ahead` of the wall clock: moving it on finishes every task made so far.
let ahead = 0;
useRelaySimulator({ latencyMs: LATENCY, now: () => Date.now() + ahead }, (started) => (sim = started));

describe('10 video tasks against a 5-active cap', () => {
	it('all succeed, in slot order, each clip its own prompt, never more than 5 active upstream', async () => {
		const prompts = Array.from({ length: 10 }, (_, i) => `SKU-${i} turning on a plinth`);
		// The first wave is held until a submit met the cap (on a loaded machine, 20-150 ms tasks could all finish
		// before the sixth submit went out, and the cap was never reached); then it finishes, the rest run as usual.
		sim.setLatency(3_600_000);
		let result: Awaited<ReturnType<typeof runVideoBatch>>;
		try {
			const running = runVideoBatch(sim, prompts);
			await until(() => sim.log.submits.some((submit) => submit.status === 429), 'a submit met the 5-active cap');
			sim.setLatency(LATENCY);
			ahead += 3_600_000;
			result = await running;
		} finally {
			sim.setLatency(LATENCY);
		}
		expect(result.error).toBeUndefined();
		const clips = result.outputOf('Collect', 0);
		expect(clips).toHaveLength(10);
		for (const [index, item] of clips.entries()) {
			expect(item.json).toMatchObject({ slot: index + 1, status: 'success', cached: false });
			expect(item.pairedItem).toEqual({ item: index, input: 0 });
			expect(item.binary?.data).toMatchObject({ mimeType: 'video/mp4', fileName: `slot-${String(index + 1).padStart(2, '0')}.mp4` });
			expect(readPromptFromMp4(await result.binaryBuffer(item))).toBe(prompts[index]);
		}
		expect(sim.log.peakActiveVideoTasks).toBeLessThanOrEqual(5);
		expect(sim.log.peakActiveVideoTasks).toBeGreaterThan(0);
		expect(sim.log.submits.some((submit) => submit.status === 429)).toBe(true); // the cap was reached and waited out
		// 429s from the cap were retried (the task was not created), each clip was paid once.
		for (const prompt of prompts) expect([...sim.log.tasks.values()].filter((t) => t.prompt === prompt)).toHaveLength(1);
		const [report] = result.outputOf('Collect', 1);
		expect(report.json).toMatchObject({ total: 10, counts: { success: 10, failed: 0, skipped_error: 0, cancelled: 0 } });
		const task = result.outputOf('Submit')[0].json;
		expect(task).toMatchObject({ kind: 'video', model: 'flux-3-video' });
		expect(poolFor('video').stats()).toMatchObject({ running: 0, queued: 0 });
	});
});

describe('failure modes', () => {
	it('placeholder: a failed slot keeps its place with status failed, its reason, and no binary', async () => {
		sim.setFault('moderated', { on: 'poll', finalStatus: 'Content Moderated' });
		const result = await runVideoBatch(sim, ['one', 'two moderated', 'three'], { collect: { failureMode: 'placeholder' } });
		expect(result.status).toBe('success');
		const clips = result.outputOf('Collect', 0);
		expect(clips.map((item) => item.json.status)).toEqual(['success', 'failed', 'success']);
		expect(clips[1].binary).toBeUndefined();
		expect(String(clips[1].json.error)).toMatch(/Content Moderated/);
		expect(result.outputOf('Collect', 1)[0].json).toMatchObject({ counts: { success: 2, failed: 1 } });
	});

	it('fail fast (default): the first failure stops the node and names the slot', async () => {
		sim.setFault('broken', { on: 'poll', finalStatus: 'Error' });
		const result = await runVideoBatch(sim, ['fine fail fast', 'broken clip']);
		expect(result.errorOf('Collect')?.message).toMatch(/[Ss]lot 2/);
	});

	it('Skip Error: the slot is skipped_error with its reason and no binary; the batch completes', async () => {
		sim.setFault('moderated', { on: 'poll', finalStatus: 'Request Moderated' });
		const result = await runVideoBatch(sim, ['moderated', 'fine and skipped'], { submit: { skipError: true } });
		expect(result.errorOf('Collect')?.message).toBeUndefined();
		const clips = result.outputOf('Collect', 0);
		expect(clips[0].json).toMatchObject({ status: 'skipped_error' });
		expect(String(clips[0].json.error)).toMatch(/Request Moderated/);
		expect(clips[0].binary).toBeUndefined();
		expect(clips[1].json.status).toBe('success');
		expect(result.outputOf('Collect', 1)[0].json).toMatchObject({ counts: { success: 1, skipped_error: 1 } });
	});

	it('"continue (using error output)": a failed slot goes to the error output, paired to its task', async () => {
		sim.setFault('bad', { on: 'poll', finalStatus: 'Error' });
		const result = await runVideoBatch(sim, ['good', 'bad one'], { collectSettings: { onError: 'continueErrorOutput' } });
		expect(result.outputOf('Collect', 0).map((item) => item.json.slot)).toEqual([1]);
		const [failed] = result.outputOf('Collect', 2);
		expect(failed.pairedItem).toEqual({ item: 1, input: 0 });
	});

	it('a second run of the same batch is served from the store: slots are cached', async () => {
		await runVideoBatch(sim, ['again a', 'again b']);
		const second = await runVideoBatch(sim, ['again a', 'again b']);
		expect(second.outputOf('Collect', 0).map((item) => item.json.cached)).toEqual([true, true]);
		expect(readPromptFromMp4(await second.binaryBuffer(second.outputOf('Collect', 0)[1]))).toBe('again b');
		expect(second.outputOf('Collect', 1)[0].json).toMatchObject({ cached: 2 });
		expect(sim.log.submitsByPrompt.get('again a')).toBe(1);
	});
});

describe('kinds and limits', () => {
	it('an image task into the video collector, and a video task into the image collector, are errors naming the slot', async () => {
		const image = makeTaskItemJson({ jobId: 'x', kind: 'image', model: 'flux-3-image', node: 'Submit', submittedAt: new Date() });
		const intoVideo = await runWorkflow({
			nodes: [manualTrigger('Trigger'), videoCollectNode('Collect', {})],
			connections: connect(['Trigger', 'Collect']),
			nodeTypes: videoNodeTypes,
			triggerItems: items(image),
		});
		expect(intoVideo.errorOf('Collect')?.message).toBe('The item at input 1, item 0 (slot 1) is an image task; this collector collects video tasks');

		const intoImage = await runWorkflow({
			nodes: [manualTrigger('Trigger'), videoSubmitNode('Submit', { prompt: 'p' }), collectNode('Collect', {})],
			connections: connect(['Trigger', 'Submit'], ['Submit', 'Collect']),
			nodeTypes: videoNodeTypes,
			credentials: fluxCredentials(sim),
		});
		expect(intoImage.errorOf('Collect')?.message).toBe('The item at input 1, item 0 (slot 1) is a video task; this collector collects image tasks');
		await poolFor('video').wait(String(intoImage.outputOf('Submit')[0].json.jobId)).catch(() => undefined);
	});

	it('takes at most 10 slots whatever COMFLY_VIDEO_CONCURRENCY is, and says how to split', async () => {
		const result = await runVideoBatch(sim, Array.from({ length: 11 }, (_, i) => `many ${i}`));
		expect(result.errorOf('Collect')?.message).toBe('11 tasks reached this collector, but one Concurrent Collect Videos takes at most 10');
		for (const task of result.outputOf('Submit')) await poolFor('video').wait(String(task.json.jobId)).catch(() => undefined);
	});

	it('image submit nodes still feed the image collector in the same workflow (pools apart)', async () => {
		const result = await runWorkflow({
			nodes: [manualTrigger('Trigger'), submitNode('Images', { prompt: 'still' }), collectNode('Collect', {})],
			connections: connect(['Trigger', 'Images'], ['Images', 'Collect']),
			nodeTypes: videoNodeTypes,
			credentials: fluxCredentials(sim),
		});
		expect(result.outputOf('Collect', 0)[0].json.status).toBe('success');
	});
});

describe('cancellation', () => {
	it('cancelling mid-collect stops the wait, drops the jobs waiting for the 5-active cap and aborts polls in flight', async () => {
		sim.setLatency(60_000);
		const pool = poolFor('video');
		const controller = new AbortController();
		const running = runVideoBatch(sim, Array.from({ length: 7 }, (_, i) => `slow clip ${i}`), { signal: controller.signal });
		// Wait (by condition, not by time) until the cap is full upstream and the rest are being refused.
		await until(() => sim.activeVideoTasks() === 5 && sim.log.submits.some((s) => s.status === 429), 'the video cap is full');
		controller.abort();
		const result = await running;
		expect(result.status).toBe('canceled');
		await until(() => pool.stats().running === 0, 'the aborted jobs have settled');
		expect(pool.stats()).toMatchObject({ running: 0, queued: 0, admitted: 0 });
		const states = await Promise.all(result.outputOf('Submit').map(async (task) => (await pool.wait(String(task.json.jobId))).state));
		expect(states).toEqual(Array(7).fill('cancelled'));
		expect(sim.log.tasks.size).toBe(5); // the two waiting for the cap were never created upstream
		sim.setLatency({ min: 20, max: 150, seed: 'video' });
	});
});
