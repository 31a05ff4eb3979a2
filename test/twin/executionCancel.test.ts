import { getEventListeners, getMaxListeners } from 'node:events';

import type { WorkerPool } from '../../src/pool';
import { releaseWhenFinal, watchExecutionCancel } from '../../src/twin/executionCancel';

function fakePool(): WorkerPool & { cancelled: string[] } {
	const cancelled: string[] = [];
	return { cancelled, cancelOwner: (owner: string) => (cancelled.push(owner), { queued: 0, running: 0 }) } as never;
}
const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('watchExecutionCancel: one listener per signal, removed when no longer held', () => {
	it('many holds share one listener; the last release removes it', () => {
		const { signal } = new AbortController();
		const limit = getMaxListeners(signal);
		const pool = fakePool();
		const releases = Array.from({ length: 50 }, () => watchExecutionCancel(signal, 'exec-1', pool));
		expect(listeners(signal)).toBe(1);
		releases.slice(1).forEach((release) => release());
		releases[1](); // idempotent: a second release does not free another holder's hold
		expect(listeners(signal)).toBe(1);
		releases[0]();
		expect(listeners(signal)).toBe(0);
		expect(getMaxListeners(signal)).toBe(limit);
		const again = watchExecutionCancel(signal, 'exec-1', pool);
		expect(listeners(signal)).toBe(1);
		again();
		expect(listeners(signal)).toBe(0);
	});

	it('an abort cancels every held owner in every pool, once', () => {
		const controller = new AbortController();
		const images = fakePool();
		const videos = fakePool();
		watchExecutionCancel(controller.signal, 'exec-1', images);
		watchExecutionCancel(controller.signal, 'exec-1', images);
		const releaseVideo = watchExecutionCancel(controller.signal, 'exec-1', videos);
		const released = watchExecutionCancel(controller.signal, 'exec-2', images);
		released();
		controller.abort();
		expect(images.cancelled).toEqual(['exec-1']);
		expect(videos.cancelled).toEqual(['exec-1']);
		expect(listeners(controller.signal)).toBe(0);
		releaseVideo(); // after the abort: nothing left to release, no error
	});

	it('an already aborted signal cancels at once and holds nothing; no signal or owner is a no-op', () => {
		const controller = new AbortController();
		controller.abort();
		const pool = fakePool();
		watchExecutionCancel(controller.signal, 'exec-1', pool)();
		expect(pool.cancelled).toEqual(['exec-1']);
		watchExecutionCancel(undefined, 'exec-1', pool)();
		watchExecutionCancel(new AbortController().signal, undefined, pool)();
		expect(pool.cancelled).toEqual(['exec-1']);
	});

	it('releaseWhenFinal releases once every job is final, failed or unknown', async () => {
		let finish!: () => void;
		const pending = new Promise<void>((resolve) => (finish = resolve));
		const pool = {
			wait: async (id: string) => {
				if (id === 'unknown') throw new Error('Unknown job');
				await pending;
			},
		} as unknown as WorkerPool;
		let released = 0;
		releaseWhenFinal(pool, ['a', 'unknown'], () => released++);
		await new Promise((resolve) => setImmediate(resolve));
		expect(released).toBe(0);
		finish();
		await new Promise((resolve) => setImmediate(resolve));
		expect(released).toBe(1);
	});
});
