/**
 * The journal around one FLUX job (storedFluxImageJob) against the relay simulator, with a fresh store on
 * disk per test: what a failed or interrupted submit leaves journaled decides whether the next run pays again
 * (it must not when the upstream may have the job) or is refused as "maybe paid" (it must not be when the
 * upstream provably never got it).
 */
import { obtainFluxImage } from '../../src/fluxN8n/storedFluxImageJob';
import { fluxJobIdentity } from '../../src/fluxN8n/fluxJobKey';
import type { PreparedFluxImageJob } from '../../src/fluxN8n/prepareFluxImageJob';
import type { FluxImageRequest } from '../../src/flux';
import { getStore, type CacheMode } from '../../src/store';
import type { RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 0 }, (started) => (sim = started));

function prepared(prompt: string, options: { timeoutMs?: number; cacheMode?: CacheMode } = {}): PreparedFluxImageJob {
	const credentials = { apiStyle: 'relay' as const, baseUrl: sim.url, apiKey: sim.apiKey };
	const request: FluxImageRequest = { prompt, resolution: '1k', aspectRatio: 'auto', grounding: true, safetyTolerance: 2, images: [] };
	return {
		credentials,
		request,
		skipError: false,
		timeoutMs: options.timeoutMs ?? 60_000,
		maxDownloadBytes: 50 * 1024 * 1024,
		cacheMode: options.cacheMode ?? 'reuse',
		identity: fluxJobIdentity({}, credentials, request, 1),
	};
}

function context(jobId: string, signal: AbortSignal = new AbortController().signal) {
	return { jobId, signal, setAttempts: jest.fn() };
}

describe('what a failed submit leaves in the journal', () => {
	it('a job timeout while the POST is in flight (the task may exist upstream) stays "submitting": no second payment', async () => {
		sim.setFault('timed out submit', { on: 'submit', hang: true });
		const job = prepared('a timed out submit', { timeoutMs: 300 });
		await expect(obtainFluxImage(job, context('job-1'))).rejects.toMatchObject({ kind: 'timeout' });
		expect((await getStore().journal.read(job.identity.key))?.state).toBe('submitting');

		sim.clearFaults();
		const again = prepared('a timed out submit');
		await expect(obtainFluxImage(again, context('job-2'))).rejects.toMatchObject({ kind: 'maybe_submitted' });
		expect(sim.log.submits.length).toBe(1);
	});

	it('a submit refused with 429 until the retries ran out (never created) is journaled failed: the next run sends it', async () => {
		sim.setFault('rate limited', { on: 'submit', status: 429, retryAfter: 0 });
		const job = prepared('rate limited');
		job.timeoutMs = 60_000;
		const failed = await obtainFluxImage(job, context('job-3')).catch((error: unknown) => error);
		expect(failed).toMatchObject({ kind: 'rate_limited' });
		expect((await getStore().journal.read(job.identity.key))?.state).toBe('failed');

		sim.clearFaults();
		const image = await obtainFluxImage(prepared('rate limited'), context('job-4'));
		expect(image).toMatchObject({ outcome: 'success', cached: false });
	});

	it('cancelled before any POST was sent leaves no "submitting" behind', async () => {
		const controller = new AbortController();
		const job = prepared('cancelled early');
		const running = obtainFluxImage(job, context('job-5', controller.signal));
		controller.abort();
		await expect(running).rejects.toMatchObject({ kind: 'cancelled' });
		expect(sim.log.submits.length).toBe(0);
		expect((await getStore().journal.read(job.identity.key))?.state).not.toBe('submitting');
	});

	it('cancelled while "submitting" was being written (nothing sent yet) is journaled failed, not left "maybe paid"', async () => {
		const controller = new AbortController();
		const store = getStore();
		const write = store.journal.submitting.bind(store.journal);
		jest.spyOn(store.journal, 'submitting').mockImplementation(async (key, start) => {
			const written = await write(key, start);
			controller.abort(); // the execution is stopped during the journal write
			return written;
		});
		const job = prepared('cancelled during the journal write');
		await expect(obtainFluxImage(job, context('job-6', controller.signal), store)).rejects.toMatchObject({ kind: 'cancelled' });
		expect(sim.log.submits.length).toBe(0);
		expect((await store.journal.read(job.identity.key))?.state).toBe('failed');
		jest.restoreAllMocks();

		const image = await obtainFluxImage(prepared('cancelled during the journal write'), context('job-7'));
		expect(image).toMatchObject({ outcome: 'success', cached: false });
	});
});

describe('single flight and the Cache option', () => {
	it('a Refresh asked while a Reuse of the same key is in flight is a new job, not the shared cached one', async () => {
		const first = await obtainFluxImage(prepared('a stored fern'), context('job-10'));
		expect(first).toMatchObject({ outcome: 'success', cached: false });
		const [reused, refreshed] = await Promise.all([
			obtainFluxImage(prepared('a stored fern'), context('job-11')),
			obtainFluxImage(prepared('a stored fern', { cacheMode: 'refresh' }), context('job-12')),
		]);
		expect(reused).toMatchObject({ outcome: 'success', cached: true });
		expect(refreshed).toMatchObject({ outcome: 'success', cached: false });
		expect(sim.log.submits.length).toBe(2);
	});

	it('an Off asked while a Reuse of the same key serves the stored result is a new job, not the stored one', async () => {
		const first = await obtainFluxImage(prepared('a stored oak'), context('job-13'));
		expect(first).toMatchObject({ outcome: 'success', cached: false });
		const [reused, off] = await Promise.all([
			obtainFluxImage(prepared('a stored oak'), context('job-14')),
			obtainFluxImage(prepared('a stored oak', { cacheMode: 'off' }), context('job-15')),
		]);
		expect(reused).toMatchObject({ outcome: 'success', cached: true });
		expect(off).toMatchObject({ outcome: 'success', cached: false });
		expect(sim.log.submits.length).toBe(2);
	});
});
