/** The replay queue (src/coordination/replayQueue.ts): order, the latest per name, a failure stays and stops the replay, putAndRetry, the bound, the return hooks, the retries without a return, one queue per connection. */
import { leasesHeld } from '../../src/coordination/heartbeat';
import { REPLAY_RETRY_MS, ReplayQueue, replayQueueOf } from '../../src/coordination/replayQueue';

/** A Redis connection's "answers again" signal, fired by hand. */
function returnSignal() {
	const listeners: Array<() => void> = [];
	return { onUp: (listener: () => void) => listeners.push(listener), up: () => listeners.forEach((listener) => listener()) };
}

it('replays in the order put, the latest of a name at its place; one that fails (false or rejecting) stays, and nothing behind it runs', async () => {
	const queue = new ReplayQueue();
	const ran: string[] = [];
	let redisAnswers = false;
	const replay = (name: string) => async () => {
		if (!redisAnswers) return false;
		ran.push(name);
		return true;
	};
	queue.put('a', replay('a1'));
	queue.put('b', replay('b'));
	queue.put('c', async () => {
		if (!redisAnswers) throw new Error('gone');
		ran.push('c');
		return true;
	});
	queue.put('a', replay('a2'));
	await queue.replay();
	expect([ran, queue.size]).toEqual([[], 3]);
	redisAnswers = true;
	queue.drop('b');
	await queue.replay();
	expect([ran, queue.size]).toEqual([['c', 'a2'], 0]);
});

it('putAndRetry queues behind what is there and tries the queue at once, in order, without the return hooks', async () => {
	const queue = new ReplayQueue();
	const ran: string[] = [];
	let hooks = 0;
	queue.onReturn(() => hooks++);
	let journalTaken = false;
	queue.put('journal:k', async () => (journalTaken ? (ran.push('journal'), true) : false));
	await queue.putAndRetry('claim:k', async () => (ran.push('release'), true));
	expect([ran, queue.size, hooks]).toEqual([[], 2, 0]); // the journal entry failed again: the release waits behind it
	journalTaken = true;
	expect(queue.holdsAny('journal:')).toBe(true);
	await queue.putAndRetry('claim:other', async () => (ran.push('release other'), true));
	expect([ran, queue.size, hooks]).toEqual([['journal', 'release', 'release other'], 0, 0]);
	expect(queue.holdsAny('journal:')).toBe(false);
});

it('keeps at most `limit` names: the oldest goes first', async () => {
	const queue = new ReplayQueue(undefined, 2);
	const ran: string[] = [];
	for (const name of ['a', 'b', 'c']) queue.put(name, async () => (ran.push(name), true));
	await queue.replay();
	expect(ran).toEqual(['b', 'c']);
});

it('replays when the connection answers again, running the return hooks first; one queue per connection', async () => {
	const signal = returnSignal();
	const queue = replayQueueOf(signal);
	expect(replayQueueOf(signal)).toBe(queue);
	expect(replayQueueOf(returnSignal())).not.toBe(queue);
	const ran: string[] = [];
	queue.put('missed', async () => (ran.push('missed'), true));
	queue.onReturn(() => queue.put('each-return', async () => (ran.push('each-return'), true)));
	signal.up();
	await queue.replay(); // after the one the return started
	expect(ran).toEqual(['missed', 'each-return', 'each-return']);
});

describe('without a return (Redis answered with an error: it was never away)', () => {
	beforeEach(() => jest.useFakeTimers());
	afterEach(() => jest.useRealTimers());

	it('tries what is queued again every REPLAY_RETRY_MS, in order and without the return hooks, until it is all in; then the retries end', async () => {
		const queue = new ReplayQueue(returnSignal());
		const ran: string[] = [];
		let hooks = 0;
		queue.onReturn(() => hooks++);
		let refusals = 2; // Redis refuses writes (e.g. OOM) for its next two tries
		const write = (name: string) => async () => {
			if (refusals > 0) return (refusals--, false);
			ran.push(name);
			return true;
		};
		queue.put('a', write('a'));
		queue.put('b', write('b'));
		expect(leasesHeld()).toBe(1);
		await jest.advanceTimersByTimeAsync(REPLAY_RETRY_MS - 1);
		expect([ran, refusals]).toEqual([[], 2]);
		await jest.advanceTimersByTimeAsync(1);
		expect([ran, refusals, queue.size]).toEqual([[], 1, 2]); // the first retry: refused at the head, nothing behind it ran
		await jest.advanceTimersByTimeAsync(REPLAY_RETRY_MS);
		expect([ran, refusals, queue.size]).toEqual([[], 0, 2]);
		await jest.advanceTimersByTimeAsync(REPLAY_RETRY_MS);
		expect([ran, queue.size, hooks]).toEqual([['a', 'b'], 0, 0]);
		expect(leasesHeld()).toBe(0);
		expect(jest.getTimerCount()).toBe(0);
	});

	it('the retries end when what was queued reached Redis another way (dropped), and start again with the next put', async () => {
		const queue = new ReplayQueue();
		let tries = 0;
		queue.put('a', async () => (tries++, false));
		await jest.advanceTimersByTimeAsync(REPLAY_RETRY_MS);
		expect(tries).toBe(1);
		queue.drop('a');
		expect(leasesHeld()).toBe(0);
		await jest.advanceTimersByTimeAsync(3 * REPLAY_RETRY_MS);
		expect(tries).toBe(1);
		queue.put('b', async () => (tries++, true));
		await jest.advanceTimersByTimeAsync(REPLAY_RETRY_MS);
		expect([tries, queue.size, leasesHeld()]).toEqual([2, 0, 0]);
	});
});
