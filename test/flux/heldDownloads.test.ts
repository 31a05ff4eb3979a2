/** The downloads' copies for the hand-over (src/flux/heldDownloads.ts): the chunks themselves, taken once, the bound over copies made and being made, the lifetime. */
import { leasesHeld } from '../../src/coordination/heartbeat';
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

it('a copy that would pass the bound keeps nothing (its reserved bytes given back); the others are untouched', () => {
	const held = new HeldDownloads(100, 60_000);
	const first = held.copy();
	const second = held.copy();
	first.add(chunk(60));
	second.add(chunk(30));
	second.add(chunk(20)); // 110 > 100: the second copy is dropped
	expect(held.heldBytes()).toBe(60);
	second.add(chunk(1)); // a dropped copy takes nothing more
	expect([second.keep(), held.heldBytes()]).toEqual([undefined, 60]);
	const id = first.keep()!;
	expect(held.take(id)?.reduce((n, c) => n + c.length, 0)).toBe(60);
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

	it('a copy nobody took within its lifetime is dropped, also with no further call (an unref\'d sweep while any copy is held)', async () => {
		const held = new HeldDownloads(1024, 30_000);
		const copy = held.copy();
		copy.add(chunk(100));
		const id = copy.keep()!;
		expect(leasesHeld()).toBe(1);
		await jest.advanceTimersByTimeAsync(29_999);
		expect(held.heldBytes()).toBe(100);
		await jest.advanceTimersByTimeAsync(1);
		expect(held.heldBytes()).toBe(0);
		expect(held.take(id)).toBeUndefined();
		expect(leasesHeld()).toBe(0);
		expect(jest.getTimerCount()).toBe(0);
	});

	it('the sweep ends once the last copy was taken', () => {
		const held = new HeldDownloads(1024, 30_000);
		const copy = held.copy();
		copy.add(chunk(10));
		const id = copy.keep()!;
		expect(leasesHeld()).toBe(1);
		held.take(id);
		expect(leasesHeld()).toBe(0);
	});
});
