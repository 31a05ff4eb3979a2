/** The in-process adaptive limit (AIMD on 429s), driven step by step: no clock, no sleeps. */
import { AdaptiveLimit, type Grant } from '../../src/accountLimit';

async function take(limit: AdaptiveLimit, n: number): Promise<Grant[]> {
	const grants: Grant[] = [];
	for (let i = 0; i < n; i++) grants.push(await limit.acquire());
	return grants;
}

/** Resolves true when `promise` has settled after the pending microtasks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
	let done = false;
	void promise.then(() => (done = true), () => (done = true));
	for (let i = 0; i < 5; i++) await Promise.resolve();
	return done;
}

describe('AdaptiveLimit', () => {
	it('holds at most the configured limit and admits the next waiter when one is released (FIFO)', async () => {
		const limit = new AdaptiveLimit({ limit: 2 });
		const [a] = await take(limit, 2);
		const third = limit.acquire();
		const fourth = limit.acquire();
		expect(await settled(third)).toBe(false);
		limit.release(a, 'failed');
		expect(await settled(third)).toBe(true);
		expect(await settled(fourth)).toBe(false);
		expect(limit.stats()).toMatchObject({ held: 2, waiting: 1 });
	});

	it('a 429 while our tasks are active cuts to what was accepted and closes until one of ours finishes', async () => {
		const limit = new AdaptiveLimit({ limit: 30 });
		const grants = await take(limit, 30);
		for (const g of grants.slice(0, 10)) limit.accepted(g);
		// The whole first wave of refusals: one cut, not twenty.
		for (const g of grants.slice(10)) expect(limit.rateLimited(g)).toBe(true);
		expect(limit.stats()).toMatchObject({ effective: 10, held: 10, accepted: 10, decreases: 1, rateLimited: 20 });
		const next = limit.acquire();
		expect(await settled(next)).toBe(false);
		limit.release(grants[0], 'ready');
		expect(await settled(next)).toBe(true);
		expect(limit.stats().held).toBe(10);
	});

	it('later refusals of the same wave raise the cut back to what the account accepted meanwhile', async () => {
		const limit = new AdaptiveLimit({ limit: 30 });
		const grants = await take(limit, 30);
		limit.accepted(grants[0]);
		limit.rateLimited(grants[29]); // only one of ours acknowledged yet
		expect(limit.stats().effective).toBe(1);
		for (const g of grants.slice(1, 10)) limit.accepted(g);
		limit.rateLimited(grants[28]);
		expect(limit.stats().effective).toBe(10);
	});

	it('a second wave cuts again, by at least the decrease factor', async () => {
		const limit = new AdaptiveLimit({ limit: 30, decrease: 0.5 });
		const grants = await take(limit, 12);
		for (const g of grants.slice(0, 10)) limit.accepted(g);
		limit.rateLimited(grants[10]);
		limit.rateLimited(grants[11]);
		expect(limit.stats()).toMatchObject({ effective: 10, decreases: 1 });
		limit.release(grants[0], 'ready');
		const fresh = await limit.acquire();
		limit.rateLimited(fresh); // a grant of the new epoch: a new wave
		expect(limit.stats()).toMatchObject({ effective: 5, decreases: 2 });
	});

	it('clean completions raise the limit additively (one slot per round) up to the configured value, failures do not', async () => {
		const limit = new AdaptiveLimit({ limit: 12 });
		const grants = await take(limit, 11);
		for (const g of grants.slice(0, 10)) limit.accepted(g);
		limit.rateLimited(grants[10]);
		expect(limit.stats().effective).toBe(10);
		limit.release(grants[0], 'failed');
		expect(limit.stats().effective).toBe(10);
		for (const g of grants.slice(1, 10)) limit.release(g, 'ready');
		expect(limit.stats().effective).toBeCloseTo(10.9, 5);
		for (let round = 0; round < 40; round++) {
			const g = await limit.acquire();
			limit.accepted(g);
			limit.release(g, 'ready');
		}
		expect(limit.stats().effective).toBe(12);
	});

	it('a 429 with none of ours active changes nothing and tells the caller to back off by itself', async () => {
		const limit = new AdaptiveLimit({ limit: 5 });
		const [g] = await take(limit, 1);
		expect(limit.rateLimited(g)).toBe(false);
		expect(limit.stats()).toMatchObject({ effective: 5, held: 0, decreases: 0, rateLimited: 1 });
		expect(await settled(limit.acquire())).toBe(true);
	});

	it('X-RateLimit-Limit caps the cut', async () => {
		const limit = new AdaptiveLimit({ limit: 30 });
		const grants = await take(limit, 30);
		for (const g of grants.slice(0, 20)) limit.accepted(g);
		limit.rateLimited(grants[29], 8);
		expect(limit.stats().effective).toBe(8);
	});

	it('an aborted waiter leaves the queue at once and holds nothing; hand-backs are idempotent', async () => {
		const limit = new AdaptiveLimit({ limit: 1 });
		const [g] = await take(limit, 1);
		const controller = new AbortController();
		const waiting = limit.acquire(controller.signal);
		controller.abort(new Error('cancelled'));
		await expect(waiting).rejects.toThrow('cancelled');
		expect(limit.stats()).toMatchObject({ waiting: 0, held: 1 });
		limit.release(g, 'ready');
		limit.release(g, 'ready');
		expect(limit.rateLimited(g)).toBe(false);
		expect(limit.stats()).toMatchObject({ held: 0, waiting: 0 });
		await expect(limit.acquire(controller.signal)).rejects.toThrow('cancelled');
	});
});
