import { getEventListeners } from 'node:events';

import { ExpiredJobError, PoolCancelledError, UnknownJobError } from '../../src/pool';
import { deferred, flush, ManualJobs, testPoolSet } from './helpers';

describe('WorkerPool', () => {
	it('never runs more than `workers` jobs, and starts them in submission order', async () => {
		const { image } = testPoolSet({ image: { workers: 2, pending: 4 } });
		const jobs = new ManualJobs();
		const ids = new Map<string, string>();
		for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) ids.set(name, await image.submit(jobs.job(name)));
		await flush();
		expect(jobs.started).toEqual(['a', 'b']);
		expect(image.stats()).toMatchObject({ running: 2, queued: 4, admitted: 6, waitingAtGate: 0 });

		jobs.resolve('b');
		await flush();
		expect(jobs.started).toEqual(['a', 'b', 'c']);
		jobs.reject('a', new Error('boom'));
		await flush();
		expect(jobs.started).toEqual(['a', 'b', 'c', 'd']);
		jobs.resolve('d');
		jobs.resolve('c');
		await flush();
		expect(jobs.started).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
		jobs.resolve('f');
		jobs.resolve('e');
		await flush();

		expect(jobs.peak).toBe(2);
		expect(image.stats()).toEqual({
			running: 0, queued: 0, admitted: 0, waitingAtGate: 0,
			completed: 5, failed: 1, cancelled: 0, retainedBytes: 0,
		});
		expect(image.get(ids.get('e')!)).toMatchObject({ state: 'succeeded', result: 'result of e' });
		expect(image.get(ids.get('a')!)).toMatchObject({ state: 'failed', error: new Error('boom') });
	});

	it('the (workers + pending + 1)th submit waits, and is admitted as soon as one job ends', async () => {
		const { image } = testPoolSet({ image: { workers: 2, pending: 1 } });
		const jobs = new ManualJobs();
		for (const name of ['a', 'b', 'c']) await image.submit(jobs.job(name));
		let admittedId: string | undefined;
		const fourth = image.submit(jobs.job('d')).then((id) => (admittedId = id));
		await flush();
		expect(admittedId).toBeUndefined();
		expect(image.stats()).toMatchObject({ running: 2, queued: 1, admitted: 3, waitingAtGate: 1 });

		jobs.resolve('a');
		await fourth;
		expect(image.get(admittedId!).state).toMatch(/queued|running/);
		await flush();
		expect(jobs.started).toEqual(['a', 'b', 'c']);
		expect(image.stats()).toMatchObject({ running: 2, queued: 1, admitted: 3, waitingAtGate: 0, completed: 1 });
	});

	it('waiting submits are admitted FIFO', async () => {
		const { video } = testPoolSet({ video: { workers: 1, pending: 0 } });
		const jobs = new ManualJobs();
		await video.submit(jobs.job('a'));
		const order: string[] = [];
		const b = video.submit(jobs.job('b')).then(() => order.push('b'));
		const c = video.submit(jobs.job('c')).then(() => order.push('c'));
		jobs.resolve('a');
		await b;
		jobs.resolve('b');
		await c;
		jobs.resolve('c');
		await flush();
		expect(order).toEqual(['b', 'c']);
		expect(jobs.started).toEqual(['a', 'b', 'c']);
	});

	it('abort while waiting at the gate rejects at once, before any job ends, and leaves nothing behind', async () => {
		const { image } = testPoolSet({ image: { workers: 1, pending: 1 } });
		const jobs = new ManualJobs();
		await image.submit(jobs.job('a'));
		await image.submit(jobs.job('b'));
		await flush();
		const before = image.stats();

		const controller = new AbortController();
		const waiting = image.submit(jobs.job('late'), { signal: controller.signal });
		await flush();
		expect(image.stats().waitingAtGate).toBe(1);
		expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);

		// Rejects on the abort itself: no job has ended, no slot was freed.
		controller.abort();
		await expect(waiting).rejects.toThrow(PoolCancelledError);
		expect(jobs.started).toEqual(['a']);
		expect(jobs.active).toBe(1);
		await expect(waiting).rejects.toThrow(/^Cancelled while waiting for a free slot in the image pool\.$/);
		expect(image.stats()).toEqual(before);
		expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);

		// The freed slots go to nobody: the aborted submit never runs.
		jobs.resolve('a');
		jobs.resolve('b');
		await flush();
		expect(jobs.started).toEqual(['a', 'b']);
		expect(image.stats()).toMatchObject({ admitted: 0, waitingAtGate: 0, completed: 2 });
	});

	it('a submit with an already-aborted signal rejects at once, even with room', async () => {
		const { image } = testPoolSet();
		const before = image.stats();
		await expect(image.submit(async () => 'x', { signal: AbortSignal.abort() })).rejects.toThrow(/cancelled/i);
		expect(image.stats()).toEqual(before);
	});

	it('cancelOwner: queued jobs never start, running ones see their signal fire and end cancelled', async () => {
		const { image, clock } = testPoolSet({ image: { workers: 1, pending: 3 } });
		const jobs = new ManualJobs();
		const a = await image.submit(jobs.abortable('a'), { owner: 'exec-1' });
		const b = await image.submit(jobs.job('b'), { owner: 'exec-1' });
		const c = await image.submit(jobs.job('c'), { owner: 'exec-2' });
		const d = await image.submit(jobs.job('d'), { owner: 'exec-1' });
		await flush();
		expect(jobs.started).toEqual(['a']);

		expect(image.cancelOwner('exec-1', 'execution stopped')).toEqual({ queued: 2, running: 1 });
		expect(jobs.contexts.get('a')!.signal.aborted).toBe(true);
		for (const id of [b, d]) {
			const snapshot = image.get(id);
			expect(snapshot.state).toBe('cancelled');
			expect(snapshot.timings).toEqual({ queuedAt: clock.now, finishedAt: clock.now }); // never started
			expect(snapshot.error).toBeInstanceOf(PoolCancelledError);
			expect(String(snapshot.error)).toBe(`PoolCancelledError: Job "${id}" was cancelled: execution stopped`);
		}

		const aDone = await image.wait(a);
		expect(aDone.state).toBe('cancelled');
		expect(aDone.error).toBeInstanceOf(PoolCancelledError);
		expect((await image.wait(b)).state).toBe('cancelled');
		await flush();
		expect(jobs.started).toEqual(['a', 'c']);
		expect(image.cancelOwner('exec-1')).toEqual({ queued: 0, running: 0 });

		jobs.resolve('c');
		expect(await image.wait(c)).toMatchObject({ state: 'succeeded', owner: 'exec-2' });
		await flush();
		expect(jobs.started).toEqual(['a', 'c']);
		expect(image.stats()).toMatchObject({ admitted: 0, completed: 1, failed: 0, cancelled: 3 });
	});

	it('cancelJobs by id; `running: false` spares running jobs; other pools and final jobs are ignored', async () => {
		const { image, video } = testPoolSet({ image: { workers: 1, pending: 2 } });
		const jobs = new ManualJobs();
		const a = await image.submit(jobs.job('a'));
		const b = await image.submit(jobs.job('b'));
		const c = await image.submit(jobs.job('c'));
		const v = await video.submit(jobs.job('v'));
		await flush();

		expect(image.cancelJobs([a, b, v, 'nope'], 'fail fast', { running: false })).toEqual({ queued: 1, running: 0 });
		expect(jobs.contexts.get('a')!.signal.aborted).toBe(false);
		expect(video.get(v).state).toBe('running');
		expect(image.get(b).state).toBe('cancelled');

		// A job that ignores its signal and succeeds anyway keeps its result.
		expect(image.cancelJobs([a, a, b])).toEqual({ queued: 0, running: 1 });
		jobs.resolve('a');
		expect(await image.wait(a)).toMatchObject({ state: 'succeeded', result: 'result of a' });
		await flush();
		expect(jobs.started).toEqual(['a', 'v', 'c']);
		jobs.resolve('c');
		jobs.resolve('v');
		expect((await image.wait(c)).state).toBe('succeeded');
		expect((await video.wait(v)).state).toBe('succeeded');
	});

	it('releases both slots however a job ends: success, rejection, synchronous throw, cancel', async () => {
		const { video } = testPoolSet({ video: { workers: 1, pending: 0 } });
		const outcomes: string[] = [];
		const ends = [
			async () => 'ok',
			async () => {
				throw new Error('rejected');
			},
			() => {
				throw new Error('thrown');
			},
			(ctx: { signal: AbortSignal }) =>
				new Promise<string>((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
		];
		for (const run of ends) {
			const id = await video.submit(run);
			await flush();
			video.cancelJobs([id]);
			outcomes.push((await video.wait(id)).state);
		}
		expect(outcomes).toEqual(['succeeded', 'failed', 'failed', 'cancelled']);
		expect(video.stats()).toEqual({
			running: 0, queued: 0, admitted: 0, waitingAtGate: 0,
			completed: 1, failed: 2, cancelled: 1, retainedBytes: 0,
		});
		const last = await video.submit(async () => 'still admits');
		expect((await video.wait(last)).result).toBe('still admits');
	});

	it('records attempts, meta, timings and retained bytes per pool', async () => {
		const { image, video, clock } = testPoolSet();
		const started = deferred();
		const finish = deferred();
		const meta = { node: 'FLUX', promptHash: 'abc' };
		const id = await image.submit(
			async (ctx) => {
				ctx.setAttempts(1);
				started.resolve();
				await finish.promise;
				ctx.setAttempts(3);
				return Buffer.alloc(120);
			},
			{ owner: 'exec-9', meta, sizeOf: (buffer) => buffer.length },
		);
		const queuedAt = clock.now;
		await started.promise;
		expect(image.get(id)).toMatchObject({ state: 'running', attempts: 1 });
		clock.now += 500;
		finish.resolve();
		const done = await image.wait<Buffer>(id);
		expect(done).toMatchObject({
			id, kind: 'image', owner: 'exec-9', state: 'succeeded', attempts: 3, meta,
			timings: { queuedAt, startedAt: queuedAt, finishedAt: queuedAt + 500 },
		});
		expect(done.result).toHaveLength(120);
		expect(done.meta).not.toBe(meta);
		expect(image.stats().retainedBytes).toBe(120);
		expect(video.stats().retainedBytes).toBe(0);
	});

	it('wait: resolves for finished jobs, rejects on abort, unknown and expired ids', async () => {
		const { image, clock, config } = testPoolSet();
		const jobs = new ManualJobs();
		const id = await image.submit(jobs.job('a'));
		const controller = new AbortController();
		const waiting = image.wait(id, controller.signal);
		controller.abort();
		await expect(waiting).rejects.toThrow(`Cancelled while waiting for job "${id}".`);
		await expect(image.wait(id, AbortSignal.abort())).rejects.toBeInstanceOf(PoolCancelledError);
		expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);

		jobs.resolve('a');
		expect((await image.wait(id)).state).toBe('succeeded');
		expect((await image.wait(id)).result).toBe('result of a'); // still readable after being read
		await expect(image.wait('no-such-id')).rejects.toBeInstanceOf(UnknownJobError);
		clock.now += config.resultTtlMs;
		await expect(image.wait(id)).rejects.toBeInstanceOf(ExpiredJobError);
	});
});
