/**
 * "Never paying twice", through n8n's real engine against the relay simulator, with the result
 * store on real files (a fresh temp folder per test, test/support/freshStore.ts): re-runs are served from the
 * store, the journal re-attaches unfinished jobs and refuses to resend maybe-paid ones, single flight, a
 * collector in a "new process" (a fresh pool set), and a store that cannot be written.
 */
import '../engine/harness'; // first: it prepares jest to load n8n-core
import fs from 'node:fs';
import { chmodSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LoggerProxy, type INodeExecutionData } from 'n8n-workflow';

import { connect, manualTrigger, runWorkflow, type EngineRun, type HarnessNode } from '../engine/harness';
import { readPromptFromPng, startRelaySimulator, type RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { getStore, MAYBE_PAID_REASON } from '../../src/store';
import { getPoolSet } from '../../src/pool';
import { resetProcessWide } from '../../src/processWide';
import { downloadDir } from '../../src/fluxN8n/downloadFolders';
import { collectNode, fluxCredentials, imageNode, items, nodeTypes, runPromptBatch, submitNode } from './setup';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 20 }, (started) => (sim = started));

const warn = jest.fn();
beforeAll(() => LoggerProxy.init({ error: jest.fn(), warn, info: jest.fn(), debug: jest.fn() }));
beforeEach(() => warn.mockClear());

/** A "new process": every process-wide object (the pool set and every job it knew, the store handle) is forgotten, the settings read again; the store on disk stays. */
function newProcess(): void {
	void resetProcessWide();
}

const slots = (run: EngineRun) => run.outputOf('Collect', 0);
const report = (run: EngineRun) => run.outputOf('Collect', 1)[0].json as { cached?: number; warnings?: string[]; counts?: unknown };
const submits = () => sim.log.submits.length;

async function pngsOf(run: EngineRun): Promise<Buffer[]> {
	return await Promise.all(slots(run).map(async (item) => await run.binaryBuffer(item, 'data')));
}

/** The journal's key and record of a task item's job. */
async function journalOf(task: INodeExecutionData) {
	const found = await getStore().journal.findByJobId(String(task.json.jobId));
	if (!found) throw new Error(`no journal record for job ${String(task.json.jobId)}`);
	return found;
}

describe('re-runs are served from the store', () => {
	const prompts = ['a lighthouse', 'a quiet harbour', 'a red kite'];

	it('a second run sends nothing, returns identical bytes, and says cached', async () => {
		const first = await runPromptBatch(sim, prompts);
		expect(first.status).toBe('success');
		expect(submits()).toBe(3);
		expect(slots(first).map((item) => item.json.cached)).toEqual([false, false, false]);
		expect(report(first).cached).toBe(0);

		const second = await runPromptBatch(sim, prompts);
		expect(second.status).toBe('success');
		expect(submits()).toBe(3);
		expect(slots(second).map((item) => item.json.cached)).toEqual([true, true, true]);
		expect(slots(second).map((item) => item.json.taskId)).toEqual(slots(first).map((item) => item.json.taskId));
		expect(report(second)).toMatchObject({ cached: 3, counts: { success: 3 } });
		expect(report(second).warnings).toBeUndefined();
		expect(await pngsOf(second)).toEqual(await pngsOf(first));
		expect((await pngsOf(second)).map((png) => readPromptFromPng(png))).toEqual(prompts);
	});

	it('a new seed, or any changed field, is a new job', async () => {
		await runPromptBatch(sim, prompts, { submit: { seed: 1 } });
		await runPromptBatch(sim, prompts, { submit: { seed: 2 } });
		expect(submits()).toBe(6);
		await runPromptBatch(sim, prompts, { submit: { seed: 2, resolution: '2k' } });
		expect(submits()).toBe(9);
		const again = await runPromptBatch(sim, prompts, { submit: { seed: 1 } });
		expect(submits()).toBe(9);
		expect(report(again).cached).toBe(3);
	});

	it('the pool keeps only references to stored results, and the collector reads the bytes back', async () => {
		const run = await runPromptBatch(sim, prompts);
		expect(run.status).toBe('success');
		expect(getPoolSet().image.stats().retainedBytes).toBe(0);
		expect((await pngsOf(run)).map((png) => readPromptFromPng(png))).toEqual(prompts);
	});

	it('30 identical rows are 30 jobs; a re-run returns the same 30 in the same order', async () => {
		const same = Array<string>(30).fill('the same prompt');
		const first = await runPromptBatch(sim, same);
		expect(first.status).toBe('success');
		expect(sim.log.submitsByPrompt.get('the same prompt')).toBe(30);
		const taskIds = slots(first).map((item) => item.json.taskId);
		expect(new Set(taskIds).size).toBe(30);

		const second = await runPromptBatch(sim, same);
		expect(sim.log.submitsByPrompt.get('the same prompt')).toBe(30);
		expect(slots(second).map((item) => item.json.taskId)).toEqual(taskIds);
		expect(report(second).cached).toBe(30);
	});

	it('Cache: Refresh sends a new job whose result replaces the stored one', async () => {
		const first = await runPromptBatch(sim, ['a comet']);
		const refreshed = await runPromptBatch(sim, ['a comet'], { submit: { options: { cache: 'refresh' } } });
		expect(submits()).toBe(2);
		expect(slots(refreshed)[0].json).toMatchObject({ status: 'success', cached: false });
		const newTask = slots(refreshed)[0].json.taskId;
		expect(newTask).not.toBe(slots(first)[0].json.taskId);
		const reused = await runPromptBatch(sim, ['a comet']);
		expect(submits()).toBe(2);
		expect(slots(reused)[0].json).toMatchObject({ cached: true, taskId: newTask });
	});

	it('Cache: Off sends every time and keeps nothing', async () => {
		await runPromptBatch(sim, ['a meteor'], { submit: { options: { cache: 'off' } } });
		const again = await runPromptBatch(sim, ['a meteor'], { submit: { options: { cache: 'off' } } });
		expect(submits()).toBe(2);
		expect(slots(again)[0].json.cached).toBe(false);
		await runPromptBatch(sim, ['a meteor']);
		expect(submits()).toBe(3); // nothing was stored to reuse
		// Off neither reads nor replaces what Reuse stored: that result stays reusable.
		await runPromptBatch(sim, ['a meteor'], { submit: { options: { cache: 'off' } } });
		expect(submits()).toBe(4);
		const reused = await runPromptBatch(sim, ['a meteor']);
		expect(submits()).toBe(4);
		expect(slots(reused)[0].json.cached).toBe(true);
	});

	it('the serial node uses the same store: cached in its json', async () => {
		const run = async () =>
			await runWorkflow({
				nodes: [manualTrigger('Trigger'), imageNode('FLUX', { prompt: '={{ $json.prompt }}' })],
				connections: connect(['Trigger', 'FLUX']),
				nodeTypes,
				credentials: fluxCredentials(sim),
				triggerItems: items({ prompt: 'a tin robot' }, { prompt: 'a tin robot' }),
			});
		const first = await run();
		expect(first.outputOf('FLUX').map((item) => item.json.cached)).toEqual([false, false]);
		const second = await run();
		expect(second.outputOf('FLUX').map((item) => item.json.cached)).toEqual([true, true]);
		expect(submits()).toBe(2);
		expect(await second.binaryBuffer(second.outputOf('FLUX')[1])).toEqual(await first.binaryBuffer(first.outputOf('FLUX')[1]));
	});
	it('the serial node with Cache: Off hands n8n the image and leaves no download file behind', async () => {
		const kept = jest.spyOn(getStore().inUse, 'useFile');
		const run = await runWorkflow({
			nodes: [manualTrigger('Trigger'), imageNode('FLUX', { prompt: '={{ $json.prompt }}', options: { cache: 'off' } })],
			connections: connect(['Trigger', 'FLUX']),
			nodeTypes,
			credentials: fluxCredentials(sim),
			triggerItems: items({ prompt: 'an unkept heron' }, { prompt: 'an unkept heron' }),
		});
		const out = run.outputOf('FLUX');
		expect(out.map((item) => item.json.cached)).toEqual([false, false]);
		for (const item of out) expect(readPromptFromPng(await run.binaryBuffer(item))).toBe('an unkept heron');
		expect(readdirSync(downloadDir('image'))).toEqual([]);
		// Nor a memory of them: the store forgets a file once it is removed (a long-lived n8n runs many such jobs).
		const files = kept.mock.calls.map(([file]) => file);
		expect(files).toHaveLength(2);
		expect(files.filter((file) => getStore().inUse.isOwnFile(file))).toEqual([]);
	});

	it('on a filesystem without hard links, a serial Cache Off run sharing a twin job\'s flight leaves the twin its image file', async () => {
		// The store folder on a filesystem that makes no hard links (the store copies there, placeContentFile.ts):
		// a caller that joins another's flight gets no link of its own, both hold the same download file.
		const realLink = fs.linkSync;
		const link = jest.spyOn(fs, 'linkSync').mockImplementation((from, to) => {
			if (String(from).startsWith(downloadDir('image'))) throw Object.assign(new Error(`EPERM: operation not permitted, link '${String(from)}'`), { code: 'EPERM' });
			realLink(from, to);
		});
		try {
			sim.setLatency(500); // both executions start together; the job they share takes this long upstream
			// Two executions ask for the same image at once (one flight): a twin's job, and the serial node, which
			// delivers its image (and is done with its file) before a collector takes the twin's slot.
			const off = { options: { cache: 'off' } };
			const alone = (node: HarnessNode) =>
				runWorkflow({ nodes: [manualTrigger('Trigger'), node], connections: connect(['Trigger', node.name]), nodeTypes, credentials: fluxCredentials(sim), triggerItems: items({ prompt: 'a linkless plover' }) });
			const [twin, serial] = await Promise.all([alone(submitNode('Submit', { prompt: '={{ $json.prompt }}', ...off })), alone(imageNode('FLUX', { prompt: '={{ $json.prompt }}', ...off }))]);
			expect(readPromptFromPng(await serial.binaryBuffer(serial.outputOf('FLUX')[0]))).toBe('a linkless plover');
			expect(submits()).toBe(1); // one flight: the two callers shared the job
			expect(link).toHaveBeenCalled();
			const collected = await runWorkflow({
				nodes: [collectNode('Collect', {})],
				connections: {},
				nodeTypes,
				credentials: fluxCredentials(sim),
				startNode: 'Collect',
				triggerItems: twin.outputOf('Submit'),
			});
			expect(collected.errorOf('Collect')?.message).toBeUndefined();
			expect(slots(collected).map((item) => item.json.status)).toEqual(['success']);
			expect(readPromptFromPng(await collected.binaryBuffer(slots(collected)[0]))).toBe('a linkless plover');
		} finally {
			link.mockRestore();
			sim.setLatency(20);
		}
	});
});

describe('the journal after a crash (a fresh pool set stands for the restarted process)', () => {
	it('a job left at "submitted" is re-attached: no new submit, the image is delivered', async () => {
		const first = await runPromptBatch(sim, ['an owl']);
		const { jobKey, record } = await journalOf(first.outputOf('Submit')[0]);
		// As if n8n died while the task was generating: acknowledged, nothing stored.
		await getStore().journal.submitted(jobKey, { taskId: record.taskId ?? '' });
		await getStore().results.remove(jobKey);
		newProcess();
		const polls = sim.log.pollsByTask.get(record.taskId ?? '') ?? 0;

		const second = await runPromptBatch(sim, ['an owl']);
		expect(second.status).toBe('success');
		expect(submits()).toBe(1);
		expect(slots(second)[0].json).toMatchObject({ status: 'success', cached: false, taskId: record.taskId, attempts: 1 });
		expect(sim.log.pollsByTask.get(record.taskId ?? '')).toBeGreaterThan(polls);
		expect(readPromptFromPng((await pngsOf(second))[0])).toBe('an owl');
		expect((await getStore().journal.read(jobKey))?.state).toBe('stored');
	});

	it('re-attaching a task the upstream forgot (Task not found) sends a new job, counted in attempts', async () => {
		const first = await runPromptBatch(sim, ['a badger']);
		const { jobKey } = await journalOf(first.outputOf('Submit')[0]);
		await getStore().journal.submitted(jobKey, { taskId: 'forgotten-task' });
		await getStore().results.remove(jobKey);
		newProcess();

		const second = await runPromptBatch(sim, ['a badger']);
		expect(second.status).toBe('success');
		expect(submits()).toBe(2);
		expect(slots(second)[0].json).toMatchObject({ status: 'success', cached: false, attempts: 2 });
	});

	it('a job left at "submitting" fails its slot as maybe paid, never resent; Refresh sends it', async () => {
		const first = await runPromptBatch(sim, ['a heron']);
		const { jobKey, record } = await journalOf(first.outputOf('Submit')[0]);
		await getStore().results.remove(jobKey);
		await getStore().journal.submitting(jobKey, record); // crash between send and acknowledgement
		newProcess();

		const second = await runPromptBatch(sim, ['a heron'], { collect: { failureMode: 'placeholder' } });
		expect(submits()).toBe(1);
		expect(slots(second)[0].json).toMatchObject({ status: 'failed', error: MAYBE_PAID_REASON, errorKind: 'maybe_submitted' });

		const refreshed = await runPromptBatch(sim, ['a heron'], { submit: { options: { cache: 'refresh' } } });
		expect(submits()).toBe(2);
		expect(slots(refreshed)[0].json).toMatchObject({ status: 'success', cached: false });
	});
});

describe('single flight and collecting in a new process', () => {
	it('two executions asking for the same jobs at once share one upstream job each', async () => {
		sim.setLatency(200);
		try {
			const prompts = ['a fox', 'a hare'];
			const [a, b] = await Promise.all([runPromptBatch(sim, prompts), runPromptBatch(sim, prompts)]);
			expect([a.status, b.status]).toEqual(['success', 'success']);
			expect(sim.log.submitsByPrompt.get('a fox')).toBe(1);
			expect(sim.log.submitsByPrompt.get('a hare')).toBe(1);
			expect(await pngsOf(a)).toEqual(await pngsOf(b));
		} finally {
			sim.setLatency(20);
		}
	});

	it('a collector re-run in a new process reads the stored results (also of tasks that were served from the store)', async () => {
		const first = await runPromptBatch(sim, ['a swan', 'a crane']);
		const servedFromStore = await runPromptBatch(sim, ['a swan', 'a crane']);
		expect(report(servedFromStore).cached).toBe(2);
		const tasks = servedFromStore.outputOf('Submit').map((item) => ({ json: item.json }));
		newProcess();
		const again = await runWorkflow({
			nodes: [manualTrigger('Trigger'), collectNode('Collect', {})],
			connections: connect(['Trigger', 'Collect']),
			nodeTypes,
			credentials: fluxCredentials(sim),
			triggerItems: tasks,
		});
		expect(again.status).toBe('success');
		expect(slots(again).map((item) => item.json)).toMatchObject([
			{ status: 'success', cached: true },
			{ status: 'success', cached: true },
		]);
		expect(await pngsOf(again)).toEqual(await pngsOf(first));
		expect(submits()).toBe(2);
	});

	it('a collector re-run in a new process re-attaches jobs still generating upstream (with its optional credential)', async () => {
		// A simulator on a clock of our own: its tasks stay generating until the test moves the clock.
		const clock = { now: Date.now() };
		const slow = await startRelaySimulator({ latencyMs: 1_000, now: () => clock.now });
		try {
			const submitted = await runWorkflow({
				nodes: [manualTrigger('Trigger'), submitNode('Submit', { prompt: '={{ $json.prompt }}' })],
				connections: connect(['Trigger', 'Submit']),
				nodeTypes,
				credentials: fluxCredentials(slow),
				triggerItems: items({ prompt: 'a wren' }, { prompt: 'a robin' }),
			});
			const tasks = submitted.outputOf('Submit').map((item) => ({ json: item.json }));
			await waitForJournal(tasks, 'submitted');
			// n8n stops: its jobs stop polling (the journal stays at "submitted"), its pool is gone.
			getPoolSet().image.cancelJobs(tasks.map((task) => String(task.json.jobId)), 'n8n stopped');
			newProcess();
			clock.now += 5_000; // the upstream finishes meanwhile

			const collect = async (withCredential: boolean) =>
				await runWorkflow({
					nodes: [manualTrigger('Trigger'), collectNode('Collect', { failureMode: 'placeholder' })],
					connections: connect(['Trigger', 'Collect']),
					nodeTypes,
					// The harness sets a credential on every node that declares one, when it has one to give.
					credentials: withCredential ? fluxCredentials(slow) : {},
					triggerItems: tasks,
				});
			const without = await collect(false);
			expect(slots(without).map((item) => item.json.status)).toEqual(['failed', 'failed']);
			expect(String(slots(without)[0].json.error)).toMatch(/Set the FLUX API credential on this collector node/);

			const withCredential = await collect(true);
			expect(slots(withCredential).map((item) => item.json)).toMatchObject([
				{ status: 'success', cached: false },
				{ status: 'success', cached: false },
			]);
			expect((await pngsOf(withCredential)).map((png) => readPromptFromPng(png))).toEqual(['a wren', 'a robin']);
			expect(slow.log.submits).toHaveLength(2);
			// Now stored: a third collector run reads the store.
			const third = await collect(false);
			expect(slots(third).map((item) => item.json.cached)).toEqual([true, true]);
		} finally {
			await slow.close();
		}
	});
});

async function waitForJournal(tasks: INodeExecutionData[], state: string): Promise<void> {
	const started = Date.now();
	for (;;) {
		const records = await Promise.all(tasks.map(async (task) => await getStore().journal.findByJobId(String(task.json.jobId))));
		if (records.every((found) => found?.record.state === state)) return;
		if (Date.now() - started > 10_000) throw new Error(`Timed out waiting for the journal to say ${state}`);
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}

describe('a store that cannot be used', () => {
	it('jobs still run and are delivered; the report and the log say so, once', async () => {
		const blocker = path.join(mkdtempSync(path.join(os.tmpdir(), 'flux-blocked-')), 'a-file');
		writeFileSync(blocker, 'not a folder');
		process.env.COMFLY_STORE_DIR = path.join(blocker, 'store');
		newProcess();

		const run = await runPromptBatch(sim, ['a moth', 'a beetle']);
		expect(run.status).toBe('success');
		expect((await pngsOf(run)).map((png) => readPromptFromPng(png))).toEqual(['a moth', 'a beetle']);
		expect(report(run).warnings).toEqual([expect.stringMatching(/^The result store at .* could not be used: .*re-run pays again\.$/)]);
		const storeWarnings = warn.mock.calls.filter(([message]) => /result store .* could not be used/.test(String(message)));
		expect(storeWarnings).toHaveLength(1);

		await runPromptBatch(sim, ['a moth', 'a beetle']);
		expect(submits()).toBe(4); // nothing kept: a re-run pays again, and says so
	});

	it('a corrupt stored image is a miss: fetched again from its upstream task while it is known there, else a new job', async () => {
		const spoil = () => {
			const content = path.join(String(process.env.COMFLY_STORE_DIR), 'results', 'content-v2');
			const files = (readdirSync(content, { recursive: true }) as string[]).map((name) => path.join(content, name)).filter((file) => statSync(file).isFile());
			expect(files.length).toBeGreaterThan(0);
			for (const file of files) {
				chmodSync(file, 0o600);
				writeFileSync(file, 'garbage where an image was');
			}
		};
		await runPromptBatch(sim, ['a moose']);
		spoil();
		newProcess();
		const again = await runPromptBatch(sim, ['a moose']);
		expect(again.status).toBe('success');
		expect(submits()).toBe(1); // the upstream still had the task: its image was downloaded again, not paid again
		expect(slots(again)[0].json.cached).toBe(false);
		expect(readPromptFromPng((await pngsOf(again))[0])).toBe('a moose');

		spoil();
		sim.reset(); // the upstream forgot every task
		newProcess();
		const third = await runPromptBatch(sim, ['a moose']);
		expect(third.status).toBe('success');
		expect(submits()).toBe(1); // a new job (the log was reset with the tasks)
		expect(readPromptFromPng((await pngsOf(third))[0])).toBe('a moose');
	});

	it('a missing store folder is created', async () => {
		const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'flux-missing-')), 'deep', 'store');
		process.env.COMFLY_STORE_DIR = dir;
		newProcess();
		await runPromptBatch(sim, ['a snail']);
		const again = await runPromptBatch(sim, ['a snail']);
		expect(submits()).toBe(1);
		expect(report(again).cached).toBe(1);
	});
});
