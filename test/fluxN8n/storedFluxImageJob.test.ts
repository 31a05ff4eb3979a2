/**
 * The journal around one FLUX job (storedFluxImageJob) against the relay simulator, with a fresh store on
 * disk per test: what a failed or interrupted submit leaves journaled decides whether the next run pays again
 * (it must not when the upstream may have the job) or is refused as "maybe paid" (it must not be when the
 * upstream provably never got it).
 */
import { obtainFluxImage } from '../../src/fluxN8n/imageJobs';
import { processAccountLimiter } from '../../src/fluxN8n/accountAdmission';
import { accountId } from '../../src/account';
import { limitName } from '../../src/accountLimit';
import { DEFAULT_IMAGE_MODEL as IMAGE_MODEL } from '../../src/models';
import { cacacheBackend, Claims, getStore, openStore, type CacheBackend } from '../../src/store';
import { thisOwner } from '../../src/coordination/ownerLiveness';
import { NOT_KEPT } from '../../src/fluxN8n/paidJobRules';
import { downloadDir } from '../../src/fluxN8n/downloadFolders';
import { resultSource as imageSource } from '../../src/fluxN8n/jobResult';
import { makePromptPng, readPromptFromPng, type RelaySimulator } from '../../relay-sim';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { until as untilState } from '../support/until';
import { jobContext, preparedImageJob, type PreparedJobOptions } from '../support/preparedJobs';

const imageDownloadDir = () => downloadDir('image');

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 0 }, (started) => (sim = started));

const prepared = (prompt: string, options?: PreparedJobOptions) => preparedImageJob(sim, prompt, options);

const context = jobContext;

describe('what a failed submit leaves in the journal', () => {
	it('a job timeout while the POST is in flight (the task may exist upstream) stays "submitting": no second payment', async () => {
		sim.setFault('timed out submit', { on: 'submit', hang: true });
		const job = prepared('a timed out submit', { timeoutMs: 1500 }); // room for the claim, the journal's synced write and the connection on a loaded machine: the POST must be in flight when it ends
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

describe('what a 429 under the account limit leaves in the journal', () => {
	it('cancelled while waiting for its own task after a 429 (no task created) is journaled failed, not left "maybe paid"', async () => {
		sim.setMaxActiveTasks(1);
		sim.setLatency(600_000);
		const holder = new AbortController();
		const waiter = new AbortController();
		try {
			const first = obtainFluxImage(prepared('the one active task'), context('job-20', holder.signal)).catch((error: unknown) => error);
			await untilState(() => sim.activeTasks() === 1, 'the first task is active');
			const job = prepared('refused, then waiting for a turn');
			const second = obtainFluxImage(job, context('job-21', waiter.signal));
			const limit = () => processAccountLimiter().stats(limitName(accountId({ apiStyle: 'relay', baseUrl: sim.url, apiKey: sim.apiKey }), IMAGE_MODEL));
			await untilState(() => (limit()?.rateLimited ?? 0) > 0, 'the client saw the 429 of the second submit');
			waiter.abort();
			await expect(second).rejects.toMatchObject({ kind: 'cancelled' });
			expect(sim.log.tasks.size).toBe(1); // the 429 created nothing
			expect((await getStore().journal.read(job.identity.key))?.state).toBe('failed');
			holder.abort();
			await first;

			sim.setLatency(0);
			sim.setMaxActiveTasks(undefined); // the cancelled first task still runs upstream
			const image = await obtainFluxImage(prepared('refused, then waiting for a turn'), context('job-22'));
			expect(image).toMatchObject({ outcome: 'success', cached: false });
		} finally {
			holder.abort();
			sim.setMaxActiveTasks(undefined);
			sim.setLatency(0);
		}
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

async function readAll(source: Buffer | NodeJS.ReadableStream): Promise<Buffer> {
	if (Buffer.isBuffer(source)) return source;
	const chunks: Buffer[] = [];
	for await (const chunk of source) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

describe('where the image goes (no image bytes held once they are on disk)', () => {
	it('Cache Reuse: the downloaded file becomes the stored content; the result is a store key (fresh), no bytes, no file left', async () => {
		const job = prepared('a streamed lark');
		const image = await obtainFluxImage(job, context('job-30'));
		expect(image).toMatchObject({ outcome: 'success', storeKey: job.identity.key, fresh: true, cached: false });
		expect(image.buffer).toBeUndefined();
		expect(image.filePath).toBeUndefined();
		expect(readPromptFromPng(await readAll(await imageSource(image)))).toBe('a streamed lark');
		expect(readdirSync(imageDownloadDir())).toEqual([]);
		expect((await getStore().journal.read(job.identity.key))?.state).toBe('stored');
	});

	it('Cache Off: the result is the download file (no bytes in memory); the journal says not kept', async () => {
		const job = prepared('an unkept wren', { cacheMode: 'off' });
		const image = await obtainFluxImage(job, context('job-31'));
		expect(image.buffer).toBeUndefined();
		expect(image.storeKey).toBeUndefined();
		expect(path.dirname(String(image.filePath))).toBe(imageDownloadDir());
		expect(readPromptFromPng(readFileSync(String(image.filePath)))).toBe('an unkept wren');
		expect(await getStore().results.has(job.identity.key)).toBe(false);
		expect((await getStore().journal.read(job.identity.key))?.reason).toMatch(/not kept \(Cache: Off\)/);
	});

	it('cancelled mid-download (slow body) of an acknowledged job: no file left, journal "submitted" with its cost; the re-run re-attaches, pays nothing, and says what the job cost', async () => {
		sim.setFault('a slow kite', { on: 'download', slowBytesPerSecond: 2048 });
		const job = prepared('a slow kite');
		const cancel = new AbortController();
		const running = obtainFluxImage(job, context('job-33', cancel.signal));
		const partial = () => existsSync(imageDownloadDir()) && readdirSync(imageDownloadDir()).some((name) => name.endsWith('.part'));
		await untilState(partial, 'the download is streaming into its .part file');
		cancel.abort();
		await expect(running).rejects.toMatchObject({ kind: 'cancelled' });
		expect(readdirSync(imageDownloadDir())).toEqual([]);
		const record = await getStore().journal.read(job.identity.key);
		expect(record?.state).toBe('submitted');
		expect(record?.cost).toBeGreaterThan(0); // the submit answer's cost, kept for the re-attach

		sim.clearFaults();
		const again = await obtainFluxImage(prepared('a slow kite'), context('job-34'));
		expect(again).toMatchObject({ outcome: 'success', storeKey: job.identity.key, cost: record?.cost });
		expect(sim.log.submits.length).toBe(1);
	});

	it('a store that cannot keep the image (injected ENOSPC): the image is still delivered, from its download file', async () => {
		const dir = mkdtempSync(path.join(tmpdir(), 'flux-adopt-fault-'));
		const backend: CacheBackend = {
			...cacacheBackend,
			adopt: async () => {
				throw Object.assign(new Error('ENOSPC: no space left on device, link'), { code: 'ENOSPC' });
			},
		};
		const store = openStore({ dir, maxBytes: 1 << 30, ttlMs: 86_400_000, spareRecentMs: 0 }, { backend, warn: () => undefined });
		try {
			const job = prepared('a heron on a full disk');
			const image = await obtainFluxImage(job, context('job-32'), store);
			expect(image.storeKey).toBeUndefined();
			expect(readPromptFromPng(readFileSync(String(image.filePath)))).toBe('a heron on a full disk');
			expect((await store.journal.read(job.identity.key))?.reason).toMatch(/the result store could not keep it/);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});

describe('the claim on the job key', () => {
	it('a job whose key another live owner holds waits for it, never sends; past its own timeout it fails "timeout", still unsent', async () => {
		const store = getStore();
		const job = prepared('an owned heron', { timeoutMs: 400 });
		const other = new Claims(store.config.dir, { owner: { ...thisOwner(), token: 'another-n8n-on-this-machine' } });
		const held = await other.acquire(job.identity.key);
		try {
			await expect(obtainFluxImage(job, context('job-41'))).rejects.toMatchObject({ kind: 'timeout', message: expect.stringMatching(/Another n8n execution ran this same job .* it was not sent from here/) });
			expect(sim.log.submits).toHaveLength(0);
		} finally {
			await held.release();
		}
	});

	it('a claimant that waited for the owner of its key takes the image the owner stored (cached), without sending', async () => {
		const store = getStore();
		const job = prepared('a shared kestrel');
		const { key, apiStyle, baseUrl, model, apiKeyHash } = job.identity;
		const other = new Claims(store.config.dir, { owner: { ...thisOwner(), token: 'the-owner-process' } });
		const held = await other.acquire(key);
		const waiting = obtainFluxImage(job, context('job-42'));
		// What the owner (another n8n process) does under its claim: journal, send, store.
		await store.journal.submitting(key, { jobId: 'owner-job', apiStyle, baseUrl, model, apiKeyHash });
		await store.journal.submitted(key, { taskId: 'owner-task' });
		await store.results.put(key, makePromptPng('a shared kestrel'), { mimeType: 'image/png', fileExtension: 'png', taskId: 'owner-task' });
		await store.journal.stored(key);
		await held.release();
		expect(await waiting).toMatchObject({ outcome: 'success', cached: true, taskId: 'owner-task' });
		expect(sim.log.submits).toHaveLength(0);
	});

	it('a claimant whose owner delivered but could not keep its image (Cache Off, a full disk) re-attaches to the owner\'s task: one paid job', async () => {
		const store = getStore();
		const ownerDir = mkdtempSync(path.join(tmpdir(), 'flux-owner-'));
		try {
			// The owner, another process with its own folder: Cache Off, its image delivered and not kept.
			const owned = await obtainFluxImage(prepared('an unkept wren', { cacheMode: 'off' }), context('job-50'), openStore({ ...store.config, dir: ownerDir }, { warn: () => undefined }));
			const job = prepared('an unkept wren');
			const { key, apiStyle, baseUrl, model, apiKeyHash } = job.identity;
			const other = new Claims(store.config.dir, { owner: { ...thisOwner(), token: 'the-off-owner' } });
			const held = await other.acquire(key);
			const waiting = obtainFluxImage(job, context('job-51'));
			await store.journal.submitting(key, { jobId: 'owner-job', apiStyle, baseUrl, model, apiKeyHash });
			await store.journal.submitted(key, { taskId: String(owned.taskId) });
			await store.journal.failed(key, 'delivered; not kept (Cache: Off)', [], NOT_KEPT);
			await held.release();
			const taken = await waiting;
			expect(taken).toMatchObject({ outcome: 'success', taskId: owned.taskId });
			expect(readPromptFromPng(await readAll(await imageSource(taken)))).toBe('an unkept wren');
			expect(sim.log.submits).toHaveLength(1);
		} finally {
			rmSync(ownerDir, { recursive: true, force: true });
		}
	});
});

describe('a caller that joins another caller\'s flight', () => {
	it('two identical Cache Off runs at once share one paid image, each with a file of its own (one removing its file leaves the other)', async () => {
		const [first, second] = await Promise.all([
			obtainFluxImage(prepared('a shared off image', { cacheMode: 'off' }), context('job-60')),
			obtainFluxImage(prepared('a shared off image', { cacheMode: 'off' }), context('job-61')),
		]);
		expect(sim.log.submits.length).toBe(1);
		expect(first.filePath).toBeDefined();
		expect(second.filePath).toBeDefined();
		expect(first.filePath).not.toBe(second.filePath);
		rmSync(first.filePath as string);
		expect(readPromptFromPng(await readAll(await imageSource(second)))).toBe('a shared off image');
		rmSync(second.filePath as string);
		expect(readdirSync(imageDownloadDir())).toEqual([]);
	});
});
