/**
 * Three FLUX 3 Video drafts through the real Concurrent Collect Videos node in n8n's engine, against the strict
 * simulator: each slot carries its draft clip in `data` and its draft cache in `draftCache`, says `draft: true` on
 * its item and Report row; two of them are then enhanced from the collected cache bytes alone, and a re-run of
 * the whole batch pays nothing. (The drafts enter the video pool as the twin admits them, prepared in code: the
 * node parameters Draft and Draft Cache are the parameters branch's.)
 */
import { flux3Video, type FluxVideoRequest } from '../../src/models';
import type { INodeExecutionData } from 'n8n-workflow';

import { readClipInfo, type RelaySimulator } from '../../relay-sim';
import { fluxVideoJobIdentity } from '../../src/fluxN8n/fluxJobKey';
import { runPooledStoredJob } from '../../src/fluxN8n/storedJob';
import { sharedReferenceImages } from '../../src/fluxN8n/sharedReferenceImages';
import { obtainFluxVideo, videoJobs } from '../../src/fluxVideoN8n/videoJobs';
import { poolFor } from '../../src/pool';
import { makeTaskItemJson } from '../../src/twin/taskItem';
import { connect, manualTrigger, runWorkflow } from '../engine/harness';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { jobContext, preparedVideoJob } from '../support/preparedJobs';
import { items } from './setup';
import { videoCollectNode, videoNodeTypes } from './videoSetup';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: { min: 5, max: 40, seed: 'drafts' } }, (started) => (sim = started));

const draftOf = (prompt: string): FluxVideoRequest => ({ model: flux3Video, mode: 't2v', prompt, aspectRatio: '16:9', resolution: 'hd', duration: 5, generateAudio: true, draft: true });
const enhanceOf = (cache: Buffer): FluxVideoRequest => ({ ...draftOf(''), draft: undefined, mode: 'draft_enhance', draftCache: sharedReferenceImages().encode(cache, 'application/octet-stream') });

function prepared(request: FluxVideoRequest) {
	const job = preparedVideoJob(sim, request.prompt ?? '');
	return { ...job, request, identity: fluxVideoJobIdentity({}, job.credentials, request, 1) };
}

/** The drafts admitted into the video pool as the twin admits its items, and their task items. */
async function submitDrafts(prompts: readonly string[]): Promise<INodeExecutionData[]> {
	const pool = poolFor('video');
	const tasks = await Promise.all(
		prompts.map(async (prompt) => {
			const jobId = await pool.submit((context) => runPooledStoredJob(videoJobs, prepared(draftOf(prompt)), context));
			return makeTaskItemJson({ jobId, kind: 'video', model: 'flux-3-video', node: 'Video Submit', submittedAt: new Date() });
		}),
	);
	return items(...tasks);
}

async function collectDrafts(prompts: readonly string[]) {
	return await runWorkflow({
		nodes: [manualTrigger('Trigger'), videoCollectNode('Collect', {})],
		connections: connect(['Trigger', 'Collect']),
		nodeTypes: videoNodeTypes,
		triggerItems: await submitDrafts(prompts),
	});
}

it('three drafts collected with their caches, two enhanced from the caches alone, a re-run pays nothing', async () => {
	const prompts = ['spot A: a kettle', 'spot B: a lamp', 'spot C: a chair'];
	const run = await collectDrafts(prompts);
	expect(run.error).toBeUndefined();
	const slots = run.outputOf('Collect', 0);
	expect(slots).toHaveLength(3);
	const caches: Buffer[] = [];
	for (const [index, item] of slots.entries()) {
		expect(item.json).toMatchObject({ slot: index + 1, status: 'success', draft: true });
		expect(item.binary?.data).toMatchObject({ mimeType: 'video/mp4', fileName: `slot-0${index + 1}.mp4` });
		expect(item.binary?.draftCache).toMatchObject({ mimeType: 'application/octet-stream', fileName: `slot-0${index + 1}-draft-cache.bin` });
		expect(readClipInfo(await run.binaryBuffer(item))).toMatchObject({ prompt: prompts[index], draft: true });
		caches.push(await run.binaryBuffer(item, 'draftCache'));
	}
	const [report] = run.outputOf('Collect', 1);
	expect((report.json.slots as Array<{ draft?: boolean }>).map((slot) => slot.draft)).toEqual([true, true, true]);

	// The choice: A and C are kept and enhanced, from their caches alone.
	const enhanced = await Promise.all([0, 2].map(async (i) => await obtainFluxVideo(prepared(enhanceOf(caches[i])), jobContext(`enhance-${i}`))));
	for (const result of enhanced) expect(result).toMatchObject({ outcome: 'success', cached: false });
	expect(sim.log.submits.filter((submit) => submit.status === 200)).toHaveLength(5);

	// The whole workflow again: every draft and both enhancements come from the store.
	const again = await collectDrafts(prompts);
	expect(again.outputOf('Collect', 0).map((item) => [item.json.cached, item.json.draft, Boolean(item.binary?.draftCache)])).toEqual(Array(3).fill([true, true, true]));
	const reEnhanced = await Promise.all([0, 2].map(async (i) => await obtainFluxVideo(prepared(enhanceOf(Buffer.from(caches[i]))), jobContext(`re-enhance-${i}`))));
	for (const result of reEnhanced) expect(result.cached).toBe(true);
	expect(sim.log.submits.filter((submit) => submit.status === 200)).toHaveLength(5);
});
