import { getEventListeners } from 'node:events';

import { CapacityGate, PoolCancelledError } from '../../src/pool';
import { flush } from './helpers';

describe('CapacityGate', () => {
	it('admits up to capacity, then queues waiters FIFO and hands each freed slot to the oldest', async () => {
		const gate = new CapacityGate(2, 'test pool');
		await gate.acquire();
		await gate.acquire();
		const admitted: string[] = [];
		const a = gate.acquire().then(() => admitted.push('a'));
		const b = gate.acquire().then(() => admitted.push('b'));
		await flush();
		expect(admitted).toEqual([]);
		expect(gate.waiting).toBe(2);

		gate.release();
		await a;
		expect(admitted).toEqual(['a']);
		expect(gate.inUse).toBe(2);

		gate.release();
		await b;
		expect(admitted).toEqual(['a', 'b']);
		gate.release();
		gate.release();
		expect(gate.inUse).toBe(0);
		expect(() => gate.release()).toThrow(/more often/);
	});

	it('a newcomer never overtakes a waiter', async () => {
		const gate = new CapacityGate(1, 'test pool');
		await gate.acquire();
		const order: string[] = [];
		const first = gate.acquire().then(() => order.push('first'));
		gate.release(); // the slot goes to `first`, not to a later acquire
		const second = gate.acquire().then(() => order.push('second'));
		await first;
		expect(gate.waiting).toBe(1);
		gate.release();
		await second;
		expect(order).toEqual(['first', 'second']);
	});

	it('abort while waiting rejects with a "cancelled" error and removes the waiter and listener', async () => {
		const gate = new CapacityGate(1, 'image pool');
		await gate.acquire();
		const controller = new AbortController();
		const waiting = gate.acquire(controller.signal);
		expect(gate.waiting).toBe(1);
		expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);

		controller.abort();
		await expect(waiting).rejects.toThrow(PoolCancelledError);
		await expect(waiting).rejects.toThrow('Cancelled while waiting for a free slot in the image pool.');
		expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
		expect(gate.waiting).toBe(0);
		expect(gate.inUse).toBe(1);

		gate.release(); // the slot is not handed to the aborted waiter
		expect(gate.inUse).toBe(0);
	});

	it('removes the abort listener when a waiter is admitted', async () => {
		const gate = new CapacityGate(1, 'image pool');
		await gate.acquire();
		const controller = new AbortController();
		const waiting = gate.acquire(controller.signal);
		gate.release();
		await waiting;
		expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
		controller.abort(); // too late: the slot stays held
		expect(gate.inUse).toBe(1);
	});

	it('an already-aborted signal rejects at once, even with room', async () => {
		const gate = new CapacityGate(1, 'image pool');
		await expect(gate.acquire(AbortSignal.abort())).rejects.toBeInstanceOf(PoolCancelledError);
		expect(gate.inUse).toBe(0);
	});

	it('does not hand a freed slot to a waiter whose signal fired in the same abort dispatch', async () => {
		// An n8n execution is cancelled: one abort listener cancels a queued job (freeing a slot)
		// before the blocked submit's own listener has run. The slot must not go to that submit.
		const gate = new CapacityGate(1, 'image pool');
		await gate.acquire();
		const controller = new AbortController();
		controller.signal.addEventListener('abort', () => gate.release(), { once: true });
		const waiting = gate.acquire(controller.signal);
		controller.abort();
		await expect(waiting).rejects.toBeInstanceOf(PoolCancelledError);
		expect(gate.inUse).toBe(0);
		expect(gate.waiting).toBe(0);
	});

	it('rejects a capacity below 1', () => {
		expect(() => new CapacityGate(0, 'x')).toThrow(RangeError);
	});
});
