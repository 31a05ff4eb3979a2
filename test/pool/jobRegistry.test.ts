import { ExpiredJobError, JobRegistry, UnknownJobError } from '../../src/pool';
import { ManualJobs, testPoolSet } from './helpers';

function registry(options: { ttlMs?: number; maxBytes?: number; maxTombstones?: number } = {}) {
	const clock = { now: 0 };
	const reg = new JobRegistry({ ttlMs: 1_000, maxBytes: 100, warn: () => undefined, ...options, now: () => clock.now });
	const succeed = (bytes: number) => {
		const id = reg.create('image');
		reg.start(id);
		reg.finish(id, { state: 'succeeded', result: `${bytes} bytes`, bytes });
		return id;
	};
	return { reg, clock, succeed };
}

const expiredMessage = (id: string) => new RegExp(`^Job "${id}" has expired`);

describe('JobRegistry', () => {
	it('gives uuid ids and a queued → running → final life with timings', () => {
		const { reg, clock } = registry();
		const id = reg.create('video', 'exec-1', { slot: 3 });
		expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
		expect(reg.get(id)).toEqual({
			id, kind: 'video', owner: 'exec-1', state: 'queued', result: undefined, error: undefined,
			attempts: 0, timings: { queuedAt: 0 }, meta: { slot: 3 },
		});
		clock.now = 10;
		reg.start(id);
		reg.setAttempts(id, 2);
		clock.now = 25;
		const error = new Error('upstream said no');
		reg.finish(id, { state: 'failed', error });
		reg.setAttempts(id, 9); // ignored once final
		expect(reg.get(id)).toMatchObject({ state: 'failed', error, attempts: 2, timings: { queuedAt: 0, startedAt: 10, finishedAt: 25 } });
	});

	it('expires finished jobs after the time-to-live, freeing their bytes; reads do not consume results', () => {
		const { reg, clock, succeed } = registry({ ttlMs: 1_000 });
		const id = succeed(40);
		expect(reg.retainedBytes()).toBe(40);
		clock.now = 999;
		expect(reg.get(id).result).toBe('40 bytes');
		expect(reg.get(id).result).toBe('40 bytes');
		clock.now = 1_000;
		expect(reg.retainedBytes()).toBe(0);
		expect(() => reg.get(id)).toThrow(ExpiredJobError);
		expect(() => reg.get(id)).toThrow(expiredMessage(id));
	});

	it('queued and running jobs never expire', () => {
		const { reg, clock } = registry({ ttlMs: 1_000 });
		const queued = reg.create('image');
		const running = reg.create('image');
		reg.start(running);
		clock.now = 1_000_000;
		expect(reg.get(queued).state).toBe('queued');
		expect(reg.get(running).state).toBe('running');
	});

	it('drops the oldest collected results first while retained bytes exceed the bound', () => {
		const { reg, clock } = registry({ maxBytes: 100 });
		const finishedSecond = reg.create('image');
		const finishedFirst = reg.create('video');
		const finish = (id: string, bytes: number) => {
			clock.now++;
			reg.finish(id, { state: 'succeeded', result: id, bytes });
			reg.markCollected(id);
		};
		finish(finishedFirst, 40);
		finish(finishedSecond, 40);
		expect(reg.retainedBytes()).toBe(80);

		const third = reg.create('image');
		finish(third, 40);
		expect(reg.retainedBytes()).toBe(80);
		expect(reg.retainedBytes('image')).toBe(80);
		expect(reg.retainedBytes('video')).toBe(0);
		expect(() => reg.get(finishedFirst)).toThrow(expiredMessage(finishedFirst));
		expect(reg.get(finishedSecond).result).toBe(finishedSecond);
		expect(reg.get(third).result).toBe(third);
	});

	it('never drops a result nobody has collected before its time-to-live, and warns once', () => {
		const warn = jest.fn();
		const clock = { now: 0 };
		const reg = new JobRegistry({ ttlMs: 1_000, maxBytes: 100, now: () => clock.now, warn });
		const succeed = (bytes: number) => {
			const id = reg.create('image');
			reg.finish(id, { state: 'succeeded', result: `${bytes} bytes`, bytes });
			return id;
		};
		// 2 workers, 0 pending, a 1 MB bound and 8 × 300 KB images, in miniature: 8 × 30 bytes, bound 100.
		const ids = Array.from({ length: 8 }, () => succeed(30));
		expect(reg.retainedBytes()).toBe(240);
		for (const id of ids) expect(reg.get(id).result).toBe('30 bytes');
		expect(warn).toHaveBeenCalledTimes(1);
		expect(warn.mock.calls[0][0]).toMatch(/not yet collected hold .* above .*COMFLY_RESULT_MAX_MB.*kept/);

		// Once delivered, the oldest delivered results go first, down to the bound.
		reg.markCollected(ids[0]);
		reg.markCollected(ids[1]);
		expect(reg.retainedBytes()).toBe(180);
		for (const id of ids.slice(2)) reg.markCollected(id);
		expect(reg.retainedBytes()).toBe(90);
		expect(() => reg.get(ids[4])).toThrow(ExpiredJobError);
		expect(reg.get(ids[5]).result).toBe('30 bytes');

		// Back within the bound, a new crossing warns again; the time-to-live still applies to all.
		succeed(30);
		expect(warn).toHaveBeenCalledTimes(1); // a collected result made room
		for (let i = 0; i < 3; i++) succeed(30);
		expect(reg.retainedBytes()).toBe(120); // every collected one dropped, the new ones all kept
		expect(warn).toHaveBeenCalledTimes(2);
		clock.now = 1_000;
		expect(reg.retainedBytes()).toBe(0);
	});

	it('a waiter gets its result even when that result alone exceeds the bound; it is dropped once collected', async () => {
		const warn = jest.fn();
		const reg = new JobRegistry({ ttlMs: 1_000, maxBytes: 100, now: () => 0, warn });
		const id = reg.create('image');
		const waiting = reg.whenFinal<string>(id);
		reg.finish(id, { state: 'succeeded', result: 'huge', bytes: 101 });
		await expect(waiting).resolves.toMatchObject({ state: 'succeeded', result: 'huge' });
		expect(reg.get(id).result).toBe('huge');
		expect(warn).toHaveBeenCalledTimes(1);
		reg.markCollected(id);
		expect(reg.retainedBytes()).toBe(0);
		expect(() => reg.get(id)).toThrow(ExpiredJobError);
	});

	it('markCollected ignores unknown, unfinished and failed jobs', () => {
		const { reg } = registry({ maxBytes: 0 });
		const running = reg.create('image');
		reg.start(running);
		const failed = reg.create('image');
		reg.finish(failed, { state: 'failed', error: new Error('no') });
		reg.markCollected('never-seen');
		reg.markCollected(running);
		reg.markCollected(failed);
		expect(reg.get(running).state).toBe('running');
		expect(reg.get(failed).state).toBe('failed');
		reg.finish(running, { state: 'succeeded', result: 'r', bytes: 1 });
		expect(reg.get(running).result).toBe('r'); // finished after the call: still uncollected
	});

	it('tells "expired" from "unknown", with a bounded set of tombstones', () => {
		const { reg, clock, succeed } = registry({ maxTombstones: 2 });
		const ids = [succeed(0), succeed(0), succeed(0)];
		clock.now = 1_000;
		expect(() => reg.get('never-seen')).toThrow(UnknownJobError);
		expect(() => reg.get('never-seen')).toThrow('Unknown job "never-seen"');
		expect(() => reg.get(ids[0])).toThrow(UnknownJobError); // its tombstone was forgotten
		expect(() => reg.get(ids[1])).toThrow(ExpiredJobError);
		expect(() => reg.get(ids[2])).toThrow(ExpiredJobError);
	});

	it('through a pool: results expire by time and by bytes, and stats().retainedBytes drops', async () => {
		const { image, clock, config } = testPoolSet({ resultMaxBytes: 100, resultTtlMs: 5_000 });
		const jobs = new ManualJobs();
		const sizeOf = (result: string) => Number(result);
		const a = await image.submit(jobs.job('a'), { sizeOf });
		const b = await image.submit(jobs.job('b'), { sizeOf });
		jobs.resolve('a', '60');
		await image.wait(a);
		expect(image.stats().retainedBytes).toBe(60);

		jobs.resolve('b', '50');
		await image.wait(b);
		expect(image.stats().retainedBytes).toBe(110); // neither collected yet: both kept
		image.markCollected([a]);
		expect(image.stats().retainedBytes).toBe(50);
		await expect(image.wait(a)).rejects.toThrow(/has expired/);

		clock.now += config.resultTtlMs;
		expect(image.stats().retainedBytes).toBe(0);
		expect(() => image.get(b)).toThrow(ExpiredJobError);
	});
});
