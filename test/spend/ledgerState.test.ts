/**
 * The ledger's rules on a fake clock (pure functions: the file and the Redis ledger apply exactly these):
 * limits, refunds, prices learned from answers, one unpriced job at a time, the rolling 24-hour window and
 * what a wall-clock step does to it, an API that reports no cost, and the merge of two copies.
 */
import {
	emptyLedger,
	merge,
	refund,
	reserve,
	settle,
	spentIn,
	WINDOW_MS,
	type LedgerClock,
	type LedgerState,
	sameLedger,
	type ReserveOutcome,
	type SpendLimits,
} from '../../src/spend';

/** Another process as the owner of a reservation. */
const OTHER = { token: 'other-process', host: 'another-host', pid: 1 };

const HOUR = 60 * 60_000;
const BOOT = 'boot-a';

/** A fake clock whose wall and monotonic time move together unless told otherwise. */
function fakeClock(start = 1_700_000_000_000) {
	const clock: LedgerClock = { wall: start, mono: 5_000, boot: BOOT };
	return {
		now: () => ({ ...clock }),
		advance(ms: number) {
			clock.wall += ms;
			clock.mono! += ms;
		},
		stepWall(ms: number) {
			clock.wall += ms;
		},
	};
}

let n = 0;
function reserveOne(state: LedgerState, clock: LedgerClock, limits: SpendLimits, options: { priceKey?: string; listPrice?: number } = {}) {
	return reserve(state, { id: `job-${++n}`, priceKey: options.priceKey ?? 'flux-3-image:a', listPrice: options.listPrice, limits, blockMs: 10 * 60_000, owner: OTHER }, clock);
}

/** Reserves until refused or waiting; each reservation is acknowledged at `cost` (undefined: no cost said). */
function fill(state: LedgerState, clock: LedgerClock, limits: SpendLimits, cost: number | undefined) {
	let outcome: ReserveOutcome;
	let bought = 0;
	for (;;) {
		const step = reserveOne(state, clock, limits);
		state = step.state;
		outcome = step.result;
		if (outcome.kind !== 'reserved') break;
		bought++;
		state = settle(state, { id: outcome.entry.id, cost, final: true, ready: true }, clock);
	}
	return { state, bought, outcome };
}

describe('limits', () => {
	it('a job limit of 5 reserves 5, then refuses naming the limit and what was spent', () => {
		const clock = fakeClock();
		const { bought, outcome } = fill(emptyLedger(), clock.now(), { jobs: 5 }, 4);
		expect(bought).toBe(5);
		expect(outcome).toMatchObject({ kind: 'refused', limit: 'jobs', spent: { jobs: 5, credits: 20 } });
	});

	it('a fresh account with a 40-credit limit: the first job goes out unpriced, the rest at the price it told, exactly 10 of 4 credits', () => {
		const clock = fakeClock();
		let state = emptyLedger();
		const first = reserveOne(state, clock.now(), { credits: 40 });
		state = first.state;
		expect(first.result).toMatchObject({ kind: 'reserved', entry: { credits: null } });
		// While it is out, a second unpriced job waits: they do not all go at once.
		expect(reserveOne(state, clock.now(), { credits: 40 }).result.kind).toBe('wait');
		if (first.result.kind !== 'reserved') throw new Error('unreachable');
		state = settle(state, { id: first.result.entry.id, cost: 4, final: false }, clock.now());
		expect(state.prices['flux-3-image:a']).toEqual({ credits: 4, at: clock.now().wall });
		// Now the price is known: nine more fit, in parallel (reserved at 4 each, none acknowledged yet).
		const reserved: string[] = [];
		for (;;) {
			const step = reserveOne(state, clock.now(), { credits: 40 });
			state = step.state;
			if (step.result.kind !== 'reserved') {
				expect(step.result).toMatchObject({ kind: 'refused', limit: 'credits', spent: { credits: 40, jobs: 10 }, price: 4 });
				break;
			}
			reserved.push(step.result.entry.id);
		}
		expect(reserved).toHaveLength(9);
		expect(spentIn(state, clock.now())).toEqual({ credits: 40, jobs: 10 });
	});

	it('a list price is the estimate until the account sees its own', () => {
		const clock = fakeClock();
		const step = reserveOne(emptyLedger(), clock.now(), { credits: 10 }, { priceKey: 'flux-2-pro:x', listPrice: 3 });
		expect(step.result).toMatchObject({ kind: 'reserved', entry: { credits: 3 } });
		const next = reserveOne(step.state, clock.now(), { credits: 10 }, { priceKey: 'flux-2-pro:x', listPrice: 3 });
		expect(next.result).toMatchObject({ kind: 'reserved', entry: { credits: 3 } });
	});

	it('an unpriced job waits only while another unpriced job of the account is out, not behind priced ones', () => {
		const clock = fakeClock();
		let state = emptyLedger();
		state = settle(state, { id: 'seed', cost: 4, final: true, known: { id: 'seed', at: clock.now().wall, credits: 4, state: 'reserved', priceKey: 'flux-3-image:a' } }, clock.now());
		const priced = reserveOne(state, clock.now(), { credits: 100 });
		expect(priced.result).toMatchObject({ kind: 'reserved', entry: { credits: 4 } });
		const unpriced = reserveOne(priced.state, clock.now(), { credits: 100 }, { priceKey: 'flux-3-image:4k' });
		expect(unpriced.result).toMatchObject({ kind: 'reserved', entry: { credits: null } });
		expect(reserveOne(unpriced.state, clock.now(), { credits: 100 }, { priceKey: 'flux-3-image:2k' }).result.kind).toBe('wait');
	});

	it('an unpriced job whose process died no longer holds others back (it still counts)', () => {
		const clock = fakeClock();
		const first = reserveOne(emptyLedger(), clock.now(), { credits: 40 });
		const dead = () => false;
		const second = reserve(first.state, { id: 'next', priceKey: 'flux-3-image:a', limits: { credits: 40 }, blockMs: 600_000, owner: OTHER }, clock.now(), dead);
		expect(second.result).toMatchObject({ kind: 'reserved' });
		expect(spentIn(second.state, clock.now()).jobs).toBe(2);
	});
});

describe('refunds and ambiguous submits', () => {
	it('a refund gives the reservation back; an ambiguous submit (never refunded) keeps counting', () => {
		const clock = fakeClock();
		let state = emptyLedger();
		const a = reserveOne(state, clock.now(), { jobs: 2 }, { listPrice: 4 });
		const b = reserveOne(a.state, clock.now(), { jobs: 2 }, { listPrice: 4 });
		state = b.state;
		expect(reserveOne(state, clock.now(), { jobs: 2 }).result.kind).toBe('refused');
		if (a.result.kind !== 'reserved' || b.result.kind !== 'reserved') throw new Error('unreachable');
		state = refund(state, a.result.entry.id, clock.now()); // a 429: provably no task
		state = settle(state, { id: b.result.entry.id, final: true, ready: false }, clock.now()); // maybe_submitted
		expect(spentIn(state, clock.now())).toEqual({ credits: 4, jobs: 1 });
		expect(reserveOne(state, clock.now(), { jobs: 2 }).result.kind).toBe('reserved');
	});
});

describe('the rolling 24-hour window', () => {
	it('entries leave the window 24 hours after they were reserved, one by one', () => {
		const clock = fakeClock();
		let state = emptyLedger();
		for (let i = 0; i < 3; i++) {
			state = fill(state, clock.now(), { jobs: i + 1 }, 4).state;
			clock.advance(HOUR);
		}
		expect(spentIn(state, clock.now())).toEqual({ credits: 12, jobs: 3 });
		expect(reserveOne(state, clock.now(), { jobs: 3 }).result.kind).toBe('refused');
		clock.advance(WINDOW_MS - 3 * HOUR); // 24 h after the first
		expect(spentIn(state, clock.now())).toEqual({ credits: 8, jobs: 2 });
		const step = reserveOne(state, clock.now(), { jobs: 3 });
		expect(step.result.kind).toBe('reserved');
		expect(step.state.entries).toHaveLength(3); // the old one was pruned
		clock.advance(2 * HOUR);
		expect(spentIn(step.state, clock.now()).jobs).toBe(1);
	});

	it('setting the wall clock forward by a day does not lift the limit on this boot (the monotonic clock decides)', () => {
		const clock = fakeClock();
		const { state } = fill(emptyLedger(), clock.now(), { jobs: 2 }, 4);
		clock.stepWall(25 * HOUR);
		expect(spentIn(state, clock.now()).jobs).toBe(2);
		expect(reserveOne(state, clock.now(), { jobs: 2 }).result.kind).toBe('refused');
		// Another machine (or a process after a reboot) goes by the wall clock.
		const otherBoot = { ...clock.now(), boot: 'boot-b' };
		expect(spentIn(state, otherBoot).jobs).toBe(0);
	});

	it('setting the wall clock back keeps entries longer, never less', () => {
		const clock = fakeClock();
		const { state } = fill(emptyLedger(), { wall: 1_700_000_000_000 }, { jobs: 1 }, 4); // no boot id: wall clock only
		clock.stepWall(-5 * HOUR);
		expect(spentIn(state, { wall: 1_700_000_000_000 - 5 * HOUR }).jobs).toBe(1);
		expect(spentIn(state, { wall: 1_700_000_000_000 + WINDOW_MS - 1 }).jobs).toBe(1);
		expect(spentIn(state, { wall: 1_700_000_000_000 + WINDOW_MS }).jobs).toBe(0);
	});
});

describe('an API that reports no cost', () => {
	it('after a finished job without cost, the credit limit is not enforced and jobs go in parallel; the job limit still holds', () => {
		const clock = fakeClock();
		let state = emptyLedger();
		const first = reserveOne(state, clock.now(), { credits: 10, jobs: 4 });
		if (first.result.kind !== 'reserved') throw new Error('unreachable');
		state = settle(first.state, { id: first.result.entry.id, final: false }, clock.now()); // acknowledged, no cost
		expect(reserveOne(state, clock.now(), { credits: 10, jobs: 4 }).result.kind).toBe('wait');
		state = settle(state, { id: first.result.entry.id, final: true, ready: true }, clock.now()); // Ready, still no cost
		expect(state.noCost).toEqual({ 'flux-3-image': clock.now().wall });
		const outcomes: string[] = [];
		for (let i = 0; i < 4; i++) {
			const step = reserveOne(state, clock.now(), { credits: 10, jobs: 4 });
			state = step.state;
			outcomes.push(step.result.kind === 'reserved' ? `reserved:${step.result.creditLimitEnforced}` : step.result.kind);
		}
		expect(outcomes).toEqual(['reserved:false', 'reserved:false', 'reserved:false', 'refused']);
	});

	it('per model: a relay that prices images but not clips still has its images held to the credit limit', () => {
		const clock = fakeClock();
		const state: LedgerState = { ...emptyLedger(), noCost: { 'flux-3-video': clock.now().wall } };
		const clip = reserve(state, { id: 'clip', priceKey: 'flux-3-video:x', limits: { credits: 8 }, blockMs: 1000, owner: OTHER }, clock.now());
		expect(clip.result).toMatchObject({ kind: 'reserved', creditLimitEnforced: false });
		const image = reserveOne(clip.state, clock.now(), { credits: 8 }, { listPrice: 4 });
		expect(image.result).toMatchObject({ kind: 'reserved', creditLimitEnforced: true });
	});

	it('a cost reported again makes the credit limit hold again', () => {
		const clock = fakeClock();
		let state: LedgerState = { ...emptyLedger(), noCost: { 'flux-3-image': clock.now().wall } };
		const step = reserveOne(state, clock.now(), { credits: 8 });
		if (step.result.kind !== 'reserved') throw new Error('unreachable');
		state = settle(step.state, { id: step.result.entry.id, cost: 4, final: true, ready: true }, clock.now());
		expect(state.noCost).toBeUndefined();
		state = reserveOne(state, clock.now(), { credits: 8 }).state;
		expect(reserveOne(state, clock.now(), { credits: 8 }).result).toMatchObject({ kind: 'refused', limit: 'credits' });
	});
});

describe('two copies of one ledger (Redis and the local mirror)', () => {
	it('merge unions entries by id, applies refunds from either side, keeps the further-along copy and the newer price', () => {
		const clock = fakeClock();
		const base = reserveOne(emptyLedger(), clock.now(), { jobs: 10 }, { listPrice: 4 });
		if (base.result.kind !== 'reserved') throw new Error('unreachable');
		const id = base.result.entry.id;
		const shared = settle(base.state, { id, cost: 5, final: true, ready: true }, clock.now());
		let local = reserveOne(base.state, clock.now(), { jobs: 10 }, { listPrice: 4 }).state; // made while Redis was away
		const localOnly = local.entries[1].id;
		const third = reserveOne(local, clock.now(), { jobs: 10 }, { listPrice: 4 });
		local = refund(third.state, third.state.entries[2].id, clock.now());
		const merged = merge(shared, local, clock.now());
		expect(merged.entries.map((e) => e.id).sort()).toEqual([id, localOnly].sort());
		expect(merged.entries.find((e) => e.id === id)).toMatchObject({ state: 'final', credits: 5 });
		expect(merged.prices['flux-3-image:a'].credits).toBe(5);
		expect(spentIn(merged, clock.now())).toEqual({ credits: 9, jobs: 2 });
		expect(merge(merged, local, clock.now()).entries).toHaveLength(2); // idempotent
	});

	it('a cost settled for an entry this copy does not hold puts it back first (the spend is never lost)', () => {
		const clock = fakeClock();
		const known = { id: 'from-redis', at: clock.now().wall, credits: 4, state: 'reserved' as const, priceKey: 'k' };
		const state = settle(emptyLedger(), { id: 'from-redis', cost: 4, final: true, ready: true, known }, clock.now());
		expect(spentIn(state, clock.now())).toEqual({ credits: 4, jobs: 1 });
	});
});

describe('an entry whose cost was never told', () => {
	it('counts at the price learned since for its key, else the highest price the account has seen', () => {
		const clock = fakeClock();
		const ambiguous = reserveOne(emptyLedger(), clock.now(), { credits: 100 });
		if (ambiguous.result.kind !== 'reserved') throw new Error('unreachable');
		let state = settle(ambiguous.state, { id: ambiguous.result.entry.id, final: true, ready: false }, clock.now()); // maybe_submitted, price unknown
		expect(spentIn(state, clock.now())).toEqual({ credits: 0, jobs: 1 });
		const known = { id: 'other', at: clock.now().wall, credits: 9, state: 'reserved' as const, priceKey: 'flux-3-image:4k' };
		state = settle(state, { id: 'other', cost: 9, final: true, ready: true, known }, clock.now());
		expect(spentIn(state, clock.now())).toEqual({ credits: 18, jobs: 2 }); // the highest price seen: 9
		const learned = { id: 'same-key', at: clock.now().wall, credits: 4, state: 'reserved' as const, priceKey: 'flux-3-image:a' };
		state = settle(state, { id: 'same-key', cost: 4, final: true, ready: true, known: learned }, clock.now());
		expect(spentIn(state, clock.now())).toEqual({ credits: 17, jobs: 3 }); // its own key's price now: 4
	});
});

describe('a change that changes nothing', () => {
	it('a refusal, a wait and a refund of an unknown id hand back the very same state (nothing for a backend to write)', () => {
		const clock = fakeClock();
		const full = fill(emptyLedger(), clock.now(), { jobs: 2 }, 4).state;
		const refused = reserveOne(full, clock.now(), { jobs: 2 });
		expect(refused.result.kind).toBe('refused');
		expect(refused.state).toBe(full);
		expect(refund(full, 'unknown', clock.now())).toBe(full);

		const unpriced = reserveOne(emptyLedger(), clock.now(), { credits: 40 }).state;
		const waiting = reserveOne(unpriced, clock.now(), { credits: 40 });
		expect(waiting.result.kind).toBe('wait');
		expect(waiting.state).toBe(unpriced);
	});

	it('a merge that brings nothing new is a new state (its revision moves) holding the same: nothing for Redis to write', () => {
		const clock = fakeClock();
		const state = fill(emptyLedger(), clock.now(), { jobs: 2 }, 4).state;
		const merged = merge(state, state, clock.now());
		expect(merged.rev).toBe(state.rev + 1);
		expect(sameLedger(merged, state)).toBe(true);
		expect(sameLedger(reserveOne(state, clock.now(), { jobs: 3 }).state, state)).toBe(false);
		expect(sameLedger(settle(state, { id: state.entries[0].id, cost: 5, final: true, ready: true }, clock.now()), state)).toBe(false);
	});

	it('what left the window still goes: a refusal drops an entry past 24 hours, a refund of nothing a removal past an hour', () => {
		const clock = fakeClock();
		let state = fill(emptyLedger(), clock.now(), { jobs: 1 }, 4).state;
		clock.advance(HOUR);
		state = fill(state, clock.now(), { jobs: 2 }, 4).state;
		const refunded = reserveOne(state, clock.now(), { jobs: 3 }, { listPrice: 4 });
		if (refunded.result.kind !== 'reserved') throw new Error('unreachable');
		state = refund(refunded.state, refunded.result.entry.id, clock.now());
		expect(state.removed).toHaveLength(1);

		clock.advance(HOUR);
		const forgotten = refund(state, 'unknown', clock.now());
		expect(forgotten).not.toBe(state);
		expect(forgotten.removed).toBeUndefined();
		expect(forgotten.entries).toHaveLength(2);

		clock.advance(WINDOW_MS - 2 * HOUR); // 24 h after the first job, 23 h after the second
		const refused = reserveOne(forgotten, clock.now(), { jobs: 1 });
		expect(refused.result).toMatchObject({ kind: 'refused', spent: { jobs: 1 } });
		expect(refused.state).not.toBe(forgotten);
		expect(refused.state.entries).toHaveLength(1);
	});
});
