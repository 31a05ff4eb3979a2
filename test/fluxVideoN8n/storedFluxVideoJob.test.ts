/**
 * The journal and the store around one FLUX video job (storedFluxVideoJob) against the relay simulator, with a
 * fresh store per test: as for images, a maybe-sent submit is never paid twice, a stored clip is reused (read
 * back as a stream), and Cache Off never takes a stored clip.
 */
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';

import { readPromptFromMp4, type RelaySimulator } from '../../relay-sim';
import { obtainFluxVideo } from '../../src/fluxVideoN8n/videoJobs';
import { downloadDir } from '../../src/fluxN8n/downloadFolders';
import { resultSource as openVideo } from '../../src/fluxN8n/jobResult';
import { getStore } from '../../src/store';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { jobContext, preparedVideoJob, type PreparedJobOptions } from '../support/preparedJobs';
import { until } from '../support/until';
import { processAccountLimiter } from '../../src/fluxN8n/accountAdmission';
import { accountId } from '../../src/account';
import { limitName } from '../../src/accountLimit';
import { flux3Video } from '../../src/models';

const VIDEO_MODEL = flux3Video.id;

const videoDownloadDir = () => downloadDir('video');

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 0 }, (started) => (sim = started));

const prepared = (prompt: string, options?: PreparedJobOptions) => preparedVideoJob(sim, prompt, options);

const context = (jobId: string) => jobContext(jobId);

async function promptOf(result: Parameters<typeof openVideo>[0]): Promise<string | undefined> {
	const chunks: Buffer[] = [];
	for await (const chunk of await openVideo(result)) chunks.push(chunk as Buffer);
	return readPromptFromMp4(Buffer.concat(chunks));
}

it('streams a new clip into the store (no download file left), then reuses it without paying again', async () => {
	const first = await obtainFluxVideo(prepared('a stored kite'), context('v-1'));
	expect(first).toMatchObject({ outcome: 'success', cached: false, storeKey: expect.any(String) });
	expect(first.filePath).toBeUndefined();
	expect(await readdir(videoDownloadDir())).toEqual([]);
	expect(await promptOf(first)).toBe('a stored kite');

	const again = await obtainFluxVideo(prepared('a stored kite'), context('v-2'));
	expect(again).toMatchObject({ outcome: 'success', cached: true });
	expect(await promptOf(again)).toBe('a stored kite');
	expect(sim.log.submits.length).toBe(1);
});

it('Cache Off keeps the clip as a file, never takes the stored one (also when joining a Reuse flight)', async () => {
	await obtainFluxVideo(prepared('an oak clip'), context('v-3'));
	const [reused, off] = await Promise.all([
		obtainFluxVideo(prepared('an oak clip'), context('v-4')),
		obtainFluxVideo(prepared('an oak clip', { cacheMode: 'off' }), context('v-5')),
	]);
	expect(reused).toMatchObject({ outcome: 'success', cached: true });
	expect(off).toMatchObject({ outcome: 'success', cached: false });
	expect(off.filePath && existsSync(off.filePath)).toBe(true);
	expect(await promptOf(off)).toBe('an oak clip');
	expect(sim.log.submits.length).toBe(2);
});

it('a job timeout while the POST is in flight stays "submitting": the next run is refused, not paid again', async () => {
	sim.setFault('hung clip', { on: 'submit', hang: true });
	const job = prepared('a hung clip', { timeoutMs: 300 });
	await expect(obtainFluxVideo(job, context('v-6'))).rejects.toMatchObject({ kind: 'timeout' });
	expect((await getStore().journal.read(job.identity.key))?.state).toBe('submitting');
	sim.clearFaults();
	await expect(obtainFluxVideo(prepared('a hung clip'), context('v-7'))).rejects.toMatchObject({ kind: 'maybe_submitted' });
	expect(sim.log.submits.length).toBe(1);
});

it('a clip whose download fails after the task was acknowledged is re-attached on the next run, not paid again', async () => {
	sim.setFault('flaky clip', { on: 'download', status: 404 });
	const job = prepared('a flaky clip');
	await expect(obtainFluxVideo(job, context('v-8'))).rejects.toMatchObject({ kind: 'download_failed' });
	expect((await getStore().journal.read(job.identity.key))?.state).toBe('submitted');
	sim.clearFaults();
	const again = await obtainFluxVideo(prepared('a flaky clip'), context('v-9'));
	expect(again).toMatchObject({ outcome: 'success' });
	expect(await promptOf(again)).toBe('a flaky clip');
	expect(sim.log.submits.length).toBe(1);
	expect(await readdir(videoDownloadDir())).toEqual([]);
});

it('two identical Cache Off runs at once share one paid clip, each with a file of its own (one removing its file leaves the other)', async () => {
	const [first, second] = await Promise.all([
		obtainFluxVideo(prepared('a shared off clip', { cacheMode: 'off' }), context('v-10')),
		obtainFluxVideo(prepared('a shared off clip', { cacheMode: 'off' }), context('v-11')),
	]);
	expect(sim.log.submits.length).toBe(1);
	expect(first.filePath).toBeDefined();
	expect(second.filePath).toBeDefined();
	expect(first.filePath).not.toBe(second.filePath);
	await rm(first.filePath as string);
	expect(await promptOf(second)).toBe('a shared off clip');
	await rm(second.filePath as string);
	// Nothing else is left behind once both callers removed theirs.
	expect(await readdir(videoDownloadDir())).toEqual([]);
});

it('cancelled while waiting for its own clip after a 429 (no task created) is journaled failed, not left "maybe paid"', async () => {
	sim.setMaxActiveVideoTasks(1);
	sim.setLatency(600_000);
	const holder = new AbortController();
	const waiter = new AbortController();
	try {
		const first = obtainFluxVideo(prepared('the one active clip'), { ...context('v-20'), signal: holder.signal }).catch((error: unknown) => error);
		await until(() => sim.activeVideoTasks() === 1, 'the first clip is active');
		const job = prepared('refused, then waiting for a turn');
		const second = obtainFluxVideo(job, { ...context('v-21'), signal: waiter.signal });
		const limit = () => processAccountLimiter().stats(limitName(accountId({ apiStyle: 'relay', baseUrl: sim.url, apiKey: sim.apiKey }), VIDEO_MODEL));
		await until(() => (limit()?.rateLimited ?? 0) > 0, 'the client saw the 429 of the second submit');
		waiter.abort();
		await expect(second).rejects.toMatchObject({ kind: 'cancelled' });
		expect((await getStore().journal.read(job.identity.key))?.state).toBe('failed');
		holder.abort();
		await first;
	} finally {
		holder.abort();
		sim.setMaxActiveVideoTasks(undefined);
		sim.setLatency(0);
	}
});
