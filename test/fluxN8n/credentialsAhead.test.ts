/**
 * CredentialsAhead: the credential is still asked of n8n once per item (a field may hold an expression n8n resolves
 * per item), but the asks for the next items start before the current one is answered, so that a running n8n's
 * database reads overlap instead of queueing one after another behind each item's preparation.
 */
import type { ICredentialDataDecryptedObject, IExecuteFunctions } from 'n8n-workflow';

import { CredentialsAhead } from '../../src/fluxN8n/credentialsAhead';

/** A node context whose getCredentials answers only when the test says so; item i's key is `key-i`. */
function deferredContext(count: number, fails: Record<number, Error | 'sync'> = {}) {
	const asks: number[] = [];
	const answers = new Map<number, () => void>();
	const getCredentials = (type: string, itemIndex: number): Promise<ICredentialDataDecryptedObject> => {
		expect(type).toBe('fluxApi');
		asks.push(itemIndex);
		const failure = fails[itemIndex];
		if (failure === 'sync') throw new Error(`n8n could not resolve the credential of item ${itemIndex}`);
		return new Promise((resolve, reject) => {
			answers.set(itemIndex, () => (failure ? reject(failure) : resolve({ apiKey: `key-${itemIndex}` })));
		});
	};
	const ctx = { getCredentials, getInputData: () => Array.from({ length: count }, (_, i) => ({ json: { i } })) } as unknown as IExecuteFunctions;
	const answer = (itemIndex: number) => answers.get(itemIndex)?.();
	return { ctx, asks, answer };
}

it('asks for the following items before the first is answered, and hands each item its own answer', async () => {
	const { ctx, asks, answer } = deferredContext(5);
	const ahead = new CredentialsAhead(ctx, 'fluxApi', 32);
	const first = ahead.for(0);
	// All five reads are under way while item 0 still waits for its own.
	expect(asks).toEqual([0, 1, 2, 3, 4]);
	for (const i of [4, 2, 0, 1, 3]) answer(i);
	await expect(first).resolves.toEqual({ apiKey: 'key-0' });
	for (const i of [1, 2, 3, 4]) await expect(ahead.for(i)).resolves.toEqual({ apiKey: `key-${i}` });
	// Once per item, as before: nothing was asked twice.
	expect(asks).toEqual([0, 1, 2, 3, 4]);
});

it('stays within its window: a large input is asked for a window at a time, as the items are prepared', async () => {
	const { ctx, asks, answer } = deferredContext(100);
	const ahead = new CredentialsAhead(ctx, 'fluxApi', 8);
	const first = ahead.for(0);
	expect(asks).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
	answer(0);
	await first;
	const tenth = ahead.for(10); // item 9 is skipped (never prepared, never asked); 10 and the window after it are asked now
	expect(asks).toEqual([...Array.from({ length: 9 }, (_, i) => i), ...Array.from({ length: 9 }, (_, i) => 10 + i)]);
	answer(10);
	await expect(tenth).resolves.toEqual({ apiKey: 'key-10' });
	const last = ahead.for(99);
	expect(asks.at(-1)).toBe(99);
	expect(asks.filter((i) => i === 99)).toHaveLength(1);
	expect(Math.max(...asks)).toBe(99); // never past the input
	answer(99);
	await expect(last).resolves.toEqual({ apiKey: 'key-99' });
});

it("an item whose credential fails gets its own error, and only when it is prepared: the other items' reads are unaffected", async () => {
	const broken = new Error('the expression in API Key failed for item 2');
	const { ctx, answer } = deferredContext(5, { 2: broken, 3: 'sync' });
	const ahead = new CredentialsAhead(ctx, 'fluxApi', 32);
	const first = ahead.for(0);
	for (const i of [0, 1, 2, 4]) answer(i);
	await expect(first).resolves.toEqual({ apiKey: 'key-0' });
	// Items 2 and 3 have failed while nobody awaits them yet. An unhandled rejection would fail this test (jest
	// fails a test on one; a listener on `process` would not see it: jest hands tests a copy of `process`).
	await new Promise((resolve) => setImmediate(resolve));
	await expect(ahead.for(1)).resolves.toEqual({ apiKey: 'key-1' });
	await expect(ahead.for(2)).rejects.toBe(broken);
	await expect(ahead.for(3)).rejects.toThrow('n8n could not resolve the credential of item 3');
	await expect(ahead.for(4)).resolves.toEqual({ apiKey: 'key-4' });
});

it('an item asked for again (already handed out) is asked of n8n again, not served a stale answer', async () => {
	const { ctx, asks, answer } = deferredContext(2);
	const ahead = new CredentialsAhead(ctx, 'fluxApi', 32);
	const once = ahead.for(1);
	answer(1);
	await once;
	const again = ahead.for(1);
	expect(asks.filter((i) => i === 1)).toHaveLength(2);
	answer(1);
	await expect(again).resolves.toEqual({ apiKey: 'key-1' });
});
