/**
 * Draft → Enhance a Draft through the result store against the (strict) relay simulator: a draft job's clip and
 * its draft cache arrive and are stored together; a re-run serves both and pays nothing; an enhance sent with the
 * cache's bytes alone renders that draft at full quality, and its re-run (the same bytes, another copy) pays nothing.
 */
import { flux3Video, type FluxVideoRequest } from '../../src/models';
import { readClipInfo, type RelaySimulator } from '../../relay-sim';
import { fluxVideoJobIdentity } from '../../src/fluxN8n/fluxJobKey';
import { resultSource, type JobResult } from '../../src/fluxN8n/jobResult';
import { sharedReferenceImages } from '../../src/fluxN8n/sharedReferenceImages';
import { obtainFluxVideo } from '../../src/fluxVideoN8n/videoJobs';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { jobContext, preparedVideoJob } from '../support/preparedJobs';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 0 }, (started) => (sim = started));

/** A prepared job of `request` (as prepareFluxVideoJob makes it: keyed by its body, media by content). */
function prepared(request: FluxVideoRequest) {
	const job = preparedVideoJob(sim, request.prompt ?? '');
	return { ...job, request, identity: fluxVideoJobIdentity({}, job.credentials, request, 1) };
}

async function bytesOf(result: JobResult, file = result as JobResult['draftCache']): Promise<Buffer> {
	const chunks: Buffer[] = [];
	const source = await resultSource(result, file);
	if (Buffer.isBuffer(source)) return source;
	for await (const chunk of source) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

const draftRequest: FluxVideoRequest = { model: flux3Video, mode: 't2v', prompt: 'SKU-7 on a turntable', aspectRatio: '16:9', resolution: 'hd', duration: 5, generateAudio: true, draft: true };
const enhanceOf = (cache: Buffer): FluxVideoRequest => ({ ...draftRequest, draft: undefined, mode: 'draft_enhance', draftCache: sharedReferenceImages().encode(Buffer.from(cache), 'application/octet-stream') });

it('draft → stored with its cache → re-run free → enhance from the cache bytes → re-run free', async () => {
	const draft = await obtainFluxVideo(prepared(draftRequest), jobContext('d-1'));
	expect(draft).toMatchObject({ outcome: 'success', cached: false, draft: true, storeKey: expect.any(String), draftCache: { storeKey: expect.any(String) } });
	const clip = await bytesOf(draft);
	expect(readClipInfo(clip)).toMatchObject({ prompt: 'SKU-7 on a turntable', draft: true });
	const cache = await bytesOf(draft, draft.draftCache);
	expect(cache.length).toBeGreaterThan(0);
	expect(sim.log.draftCacheDownloads).toBe(1);

	const again = await obtainFluxVideo(prepared(draftRequest), jobContext('d-2'));
	expect(again).toMatchObject({ cached: true, draft: true });
	expect(await bytesOf(again, again.draftCache)).toEqual(cache);
	expect(sim.log.submits).toHaveLength(1);

	const enhanced = await obtainFluxVideo(prepared(enhanceOf(cache)), jobContext('d-3'));
	expect(enhanced).toMatchObject({ outcome: 'success', cached: false });
	expect(enhanced.draft).toBeUndefined();
	const full = readClipInfo(await bytesOf(enhanced));
	expect(full).toMatchObject({ prompt: 'SKU-7 on a turntable', enhancedFrom: draft.taskId });
	expect(full?.draft).toBeUndefined();
	expect(sim.log.submits).toHaveLength(2);

	const enhancedAgain = await obtainFluxVideo(prepared(enhanceOf(Buffer.from(cache))), jobContext('d-4'));
	expect(enhancedAgain).toMatchObject({ cached: true, taskId: enhanced.taskId });
	expect(sim.log.submits).toHaveLength(2);
});
