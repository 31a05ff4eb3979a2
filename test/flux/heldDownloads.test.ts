/** The downloads' copies for the hand-over (src/flux/heldDownloads.ts): the chunks themselves, taken once, the bound over copies made and being made (the oldest made pushed out), the lifetime. */
import { HeldDownloads } from '../../src/flux/heldDownloads';

const chunk = (n: number, fill = 1) => Buffer.alloc(n, fill);

it('a kept copy is the chunks themselves (no bytes copied), taken once; its bytes are given back when taken', () => {
	const held = new HeldDownloads(1024, 60_000);
	const chunks = [chunk(100, 1), chunk(50, 2)];
	const copy = held.copy();
	for (const c of chunks) copy.add(c);
	expect(held.heldBytes()).toBe(150);
	const id = copy.keep()!;
	expect(held.heldBytes()).toBe(150);
	const taken = held.take(id)!;
	expect(taken).toHaveLength(2);
	taken.forEach((c, i) => expect(c).toBe(chunks[i]));
	expect([held.take(id), held.heldBytes()]).toEqual([undefined, 0]);
	expect(held.take('never-made')).toBeUndefined();
});

it('a copy that copies still being made leave no room for keeps nothing (its reserved bytes given back); they are untouched', () => {
	const held = new HeldDownloads(100, 60_000);
	const first = held.copy();
	const second = held.copy();
	first.add(chunk(60));
	second.add(chunk(30));
	second.add(chunk(20)); // 110 > 100, and the first is still being made: the second copy is dropped
	expect(held.heldBytes()).toBe(60);
	second.add(chunk(1)); // a dropped copy takes nothing more
	expect([second.keep(), held.heldBytes()]).toEqual([undefined, 60]);
	const id = first.keep()!;
	expect(held.take(id)?.reduce((n, c) => n + c.length, 0)).toBe(60);
	expect(held.heldBytes()).toBe(0);
});

it('a new copy pushes out the oldest copies made, as many as it needs, never the newer ones', () => {
	const held = new HeldDownloads(100, 60_000);
	const made = [1, 2, 3].map(() => {
		const copy = held.copy();
		copy.add(chunk(30));
		return copy.keep()!;
	});
	const newest = held.copy();
	newest.add(chunk(40)); // 130 > 100: the oldest goes; 100 fits
	expect(held.heldBytes()).toBe(100);
	newest.add(chunk(25)); // 125 > 100: the next oldest goes
	expect(held.heldBytes()).toBe(95);
	const tooLarge = held.copy();
	tooLarge.add(chunk(101)); // could never fit: pushes nothing out
	expect([tooLarge.keep(), held.heldBytes()]).toEqual([undefined, 95]);
	const id = newest.keep()!;
	expect([held.take(made[0]), held.take(made[1])]).toEqual([undefined, undefined]);
	expect(held.take(made[2])).toHaveLength(1);
	expect(held.take(id)).toHaveLength(2);
	expect(held.heldBytes()).toBe(0);
});

it('a dropped copy (its download failed) gives its bytes back; dropping twice, or after keep, changes nothing', () => {
	const held = new HeldDownloads(100, 60_000);
	const failed = held.copy();
	failed.add(chunk(40));
	failed.drop();
	failed.drop();
	expect(held.heldBytes()).toBe(0);
	const kept = held.copy();
	kept.add(chunk(10));
	const id = kept.keep()!;
	kept.drop();
	expect(held.heldBytes()).toBe(10);
	expect(held.take(id)).toHaveLength(1);
});

describe('lifetime', () => {
	beforeEach(() => jest.useFakeTimers());
	afterEach(() => jest.useRealTimers());

	const keepOne = (held: HeldDownloads, bytes: number) => {
		const copy = held.copy();
		copy.add(chunk(bytes));
		return copy.keep()!;
	};

	it('each copy nobody took is dropped at the end of its own lifetime, with no further call (an unref\'d timer while any copy is held)', async () => {
		const held = new HeldDownloads(1024, 30_000);
		const first = keepOne(held, 100);
		await jest.advanceTimersByTimeAsync(20_000);
		const second = keepOne(held, 50);
		expect(jest.getTimerCount()).toBe(1);
		await jest.advanceTimersByTimeAsync(9_999);
		expect(held.heldBytes()).toBe(150);
		await jest.advanceTimersByTimeAsync(1); // the first's 30 s
		expect([held.take(first), held.heldBytes()]).toEqual([undefined, 50]);
		await jest.advanceTimersByTimeAsync(19_999);
		expect(held.heldBytes()).toBe(50);
		await jest.advanceTimersByTimeAsync(1); // the second's 30 s
		expect([held.take(second), held.heldBytes()]).toEqual([undefined, 0]);
		expect(jest.getTimerCount()).toBe(0);
	});

	it('the timer ends once the last copy was taken', () => {
		const held = new HeldDownloads(1024, 30_000);
		const id = keepOne(held, 10);
		expect(jest.getTimerCount()).toBe(1);
		held.take(id);
		expect(jest.getTimerCount()).toBe(0);
	});
});
