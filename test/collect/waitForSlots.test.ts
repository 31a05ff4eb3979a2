/**
 * The collector's part of cancel-listener hygiene: waiting for 30 slots leaves nothing on the execution's cancel
 * signal and never changes its listener limit (n8n sets it to unlimited).
 */
import { getEventListeners, setMaxListeners } from 'node:events';

import { waitForSlots } from '../../src/collect/waitForSlots';
import type { Slot } from '../../src/collect/slots';
import { PoolCancelledError } from '../../src/pool';
import { flush, ManualJobs, testPoolSet } from '../pool/helpers';

const keep = (text: string) => text;

async function thirtySlots() {
	const set = testPoolSet({ image: { workers: 30, pending: 0 } });
	const jobs = new ManualJobs();
	const names = Array.from({ length: 30 }, (_, i) => `job ${i + 1}`);
	const slots: Slot[] = [];
	for (const [index, name] of names.entries()) {
		slots.push({ slot: index + 1, inputIndex: 0, itemIndex: index, jobId: await set.image.submit(jobs.abortable(name)) });
	}
	await flush();
	return { pool: set.image, jobs, names, slots };
}

/** n8n's execution signal: listener limit switched off. */
function executionSignal() {
	const execution = new AbortController();
	setMaxListeners(0, execution.signal);
	return execution;
}

describe('waitForSlots and the execution signal', () => {
	const warnings: Error[] = [];
	const onWarning = (warning: Error) => warnings.push(warning);
	beforeAll(() => process.on('warning', onWarning));
	afterAll(() => process.off('warning', onWarning));
	beforeEach(() => (warnings.length = 0));

	it('holds one listener while waiting, none after, and leaves the limit alone (100 runs, no warning)', async () => {
		const execution = executionSignal();
		const setLimit = jest.spyOn(jest.requireActual<typeof import('node:events')>('node:events'), 'setMaxListeners');
		for (let run = 0; run < 100; run++) {
			const { pool, jobs, names, slots } = await thirtySlots();
			const waiting = waitForSlots(pool, slots, { failFast: false, signal: execution.signal, redact: keep });
			await flush();
			expect(getEventListeners(execution.signal, 'abort')).toHaveLength(1);
			for (const name of names) jobs.resolve(name);
			expect((await waiting).map((outcome) => outcome.status)).toEqual(Array(30).fill('success'));
			expect(getEventListeners(execution.signal, 'abort')).toHaveLength(0);
		}
		await flush();
		expect(setLimit.mock.calls.filter(([, ...targets]) => targets.includes(execution.signal))).toEqual([]);
		setLimit.mockRestore();
		expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
	});

	it('fail fast and cancellation also end with no listener left', async () => {
		const execution = executionSignal();
		const first = await thirtySlots();
		const failing = waitForSlots(first.pool, first.slots, { failFast: true, signal: execution.signal, redact: keep });
		first.jobs.reject('job 1', new Error('boom'));
		await expect(failing).rejects.toThrow(/^Slot 1 failed: boom$/);
		expect(getEventListeners(execution.signal, 'abort')).toHaveLength(0);
		for (const name of first.names.slice(1)) first.jobs.resolve(name);

		const second = await thirtySlots();
		const cancelled = waitForSlots(second.pool, second.slots, { failFast: false, signal: execution.signal, redact: keep });
		await flush();
		execution.abort();
		await expect(cancelled).rejects.toBeInstanceOf(PoolCancelledError);
		expect(getEventListeners(execution.signal, 'abort')).toHaveLength(0);
		for (const name of second.names) second.jobs.resolve(name);
		await flush();
		expect(warnings.filter((warning) => warning.name === 'MaxListenersExceededWarning')).toEqual([]);
	});
});

describe('waitForSlots tells each outcome as soon as it is known', () => {
	it('slot 2 is reported while slot 1 still runs, slot 1 once it ends; the result is still in slot order', async () => {
		const { pool, jobs, names, slots } = await thirtySlots();
		const told: number[] = [];
		const waiting = waitForSlots(pool, slots.slice(0, 2), { failFast: false, redact: keep, onOutcome: (outcome) => told.push(outcome.slot.slot) });
		jobs.resolve(names[1]);
		await flush();
		expect(told).toEqual([2]);
		jobs.resolve(names[0]);
		expect((await waiting).map((outcome) => outcome.slot.slot)).toEqual([1, 2]);
		expect(told).toEqual([2, 1]);
		for (const name of names.slice(2)) jobs.resolve(name);
	});
});
