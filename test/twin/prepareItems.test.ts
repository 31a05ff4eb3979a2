/**
 * The item loop of the twin and the serial node (src/twin/makeConcurrentTwin.ts prepareItems) gives the event loop
 * a turn every PREPARE_TURN_MS of work: n8n resolves an item's parameters synchronously, and thirty items prepared
 * in one turn stalled n8n's whole process. Each item's preparation here takes 4 ms of a fake clock.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { PREPARE_TURN_MS, prepareItems } from '../../src/twin/makeConcurrentTwin';

const ITEM_MS = 4;

function context(items: number): IExecuteFunctions {
	return {
		getInputData: () => Array.from({ length: items }, () => ({ json: {} })),
		getNode: () => ({ name: 'Submit', type: 'test', typeVersion: 1, position: [0, 0], parameters: {} }),
		continueOnFail: () => false,
	} as unknown as IExecuteFunctions;
}

beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
afterEach(() => jest.useRealTimers());

it('thirty items of 4 ms each: the event loop gets a turn about every PREPARE_TURN_MS, and every item is prepared in order', async () => {
	const turns: number[] = []; // how many items were prepared when another callback of the event loop got to run
	let done = 0;
	let watching = true;
	const watch = () => setImmediate(() => {
		turns.push(done);
		if (watching) watch();
	});
	watch();
	const prepared = await prepareItems(context(30), {
		prepare: async (_ctx, itemIndex) => {
			jest.advanceTimersByTime(ITEM_MS); // the item's synchronous work
			done += 1;
			return itemIndex;
		},
	});
	watching = false;
	expect(prepared.map((entry) => ('value' in entry ? entry.value : entry.error))).toEqual(Array.from({ length: 30 }, (_, i) => i));
	// Without the turns the watcher would first run after all thirty items (one turn of 120 ms).
	const perTurn = Math.ceil(PREPARE_TURN_MS / ITEM_MS); // items prepared between two turns, at most
	const during = turns.filter((count) => count < 30);
	expect(Math.max(...during.map((count, i) => count - (during[i - 1] ?? 0)))).toBeLessThanOrEqual(perTurn);
	expect(during.length).toBeGreaterThanOrEqual(30 / perTurn - 1);
});

it('a few fast items are prepared in one turn (no yield when there is nothing to give back)', async () => {
	const turns: number[] = [];
	let done = 0;
	setImmediate(() => turns.push(done));
	await prepareItems(context(5), {
		prepare: async () => {
			done += 1;
			return done;
		},
	});
	expect(done).toBe(5);
	expect(turns).toEqual([]); // the watcher had no turn before the loop ended
});
