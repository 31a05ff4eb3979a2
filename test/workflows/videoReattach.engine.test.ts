/**
 * Concurrent Collect Videos in a "new process" (n8n killed while clips were generating): the journal says
 * `submitted`, the pool is gone; the collector re-attaches with its optional credential (the account that sent
 * the jobs), streams the clips into the store, and pays nothing again. Without a credential the slots say why.
 */
import '../engine/harness'; // first: it prepares jest to load n8n-core
import { readdir } from 'node:fs/promises';
import type { INodeExecutionData } from 'n8n-workflow';

import { readPromptFromMp4, startRelaySimulator } from '../../relay-sim';
import { downloadDir } from '../../src/fluxN8n/downloadFolders';

import { getPoolSet } from '../../src/pool';
import { getStore } from '../../src/store';
import { resetProcessWide } from '../../src/processWide';
import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import { fluxCredentials, items } from './setup';
import { videoCollectNode, videoNodeTypes, videoSubmitNode } from './videoSetup';

const videoDownloadDir = () => downloadDir('video');

/** A "new process": every process-wide object (the pool set and every job it knew, the store handle) is forgotten; the disk stays. */
function newProcess(): void {
	void resetProcessWide();
}

async function journalSays(tasks: INodeExecutionData[], state: string): Promise<void> {
	for (;;) {
		const records = await Promise.all(tasks.map(async (task) => await getStore().journal.findByJobId(String(task.json.jobId))));
		if (records.every((found) => found?.record.state === state)) return;
		await new Promise((resolve) => setImmediate(resolve));
	}
}

it('re-attaches clips still generating upstream when n8n stopped, with the collector credential; no new submit', async () => {
	const clock = { now: Date.now() };
	const slow = await startRelaySimulator({ latencyMs: 1_000, now: () => clock.now });
	try {
		const submitted = await runWorkflow({
			nodes: [manualTrigger('Trigger'), videoSubmitNode('Submit', { prompt: '={{ $json.prompt }}' })],
			connections: connect(['Trigger', 'Submit']),
			nodeTypes: videoNodeTypes,
			credentials: fluxCredentials(slow),
			triggerItems: items({ prompt: 'a heron clip' }, { prompt: 'an otter clip' }),
		});
		const tasks = submitted.outputOf('Submit').map((item) => ({ json: item.json }));
		await journalSays(tasks, 'submitted');
		getPoolSet().video.cancelJobs(tasks.map((task) => String(task.json.jobId)), 'n8n stopped');
		newProcess();
		clock.now += 5_000; // the upstream finishes meanwhile

		const collect = async (withCredential: boolean) =>
			await runWorkflow({
				nodes: [manualTrigger('Trigger'), videoCollectNode('Collect', { failureMode: 'placeholder' }, { credentials: { fluxApi: { id: 'cred-1', name: 'FLUX (simulator)' } } })],
				connections: connect(['Trigger', 'Collect']),
				nodeTypes: videoNodeTypes,
				credentials: withCredential ? fluxCredentials(slow) : {},
				triggerItems: tasks,
			});
		const without = await collect(false);
		const withoutSlots = without.outputOf('Collect', 0);
		expect(withoutSlots.map((item) => item.json.status)).toEqual(['failed', 'failed']);
		expect(String(withoutSlots[0].json.error)).toMatch(/Set the FLUX API credential on this collector node/);
		expect(withoutSlots[0].binary).toBeUndefined();

		const withCredential = await collect(true);
		const slots = withCredential.outputOf('Collect', 0);
		expect(slots.map((item) => item.json)).toMatchObject([{ status: 'success' }, { status: 'success' }]);
		expect(await Promise.all(slots.map(async (item) => readPromptFromMp4(await withCredential.binaryBuffer(item))))).toEqual(['a heron clip', 'an otter clip']);
		expect(slow.log.submits).toHaveLength(2);
		expect((await getStore().journal.findByJobId(String(tasks[0].json.jobId)))?.record.state).toBe('stored');
		expect(await readdir(videoDownloadDir())).toEqual([]);
	} finally {
		await slow.close();
	}
});
