/** The replay queue (src/coordination/replayQueue.ts): order, the latest per name, a failure stays and stops the replay, the bound, the return hooks, one queue per connection. */
import { ReplayQueue, replayQueueOf } from '../../src/coordination/replayQueue';

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
