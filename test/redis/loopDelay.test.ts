/**
 * LoopDelay (src/redis/loopDelay.ts): the longest event-loop hold-up in the last one or two windows, as Node's
 * event-loop monitor measures it. Real timers: it is a real loop being held up, not a clock that is told.
 */
import { LoopDelay } from '../../src/redis/loopDelay';
import { until } from '../support/until';

let loop: LoopDelay | undefined;
afterEach(() => loop?.close());

/** Keeps this process busy for `ms` (the point is the held-up loop, not the time). */
function holdUpEventLoop(ms: number): void {
	const end = Date.now() + ms;
	while (Date.now() < end) {
		// busy on purpose
	}
}

it('sees a hold-up of the loop after its first tick, and forgets it two windows later', async () => {
	loop = new LoopDelay(100);
	const watched = loop;
	await until(() => watched.sampled() && watched.longestMs() < 250, 'the monitor has a sample, and no hold-up of 250 ms');

	holdUpEventLoop(300);
	await until(() => watched.longestMs() >= 250, 'the hold-up is seen');

	await until(() => watched.longestMs() < 250, 'two windows later the hold-up is forgotten');
});
