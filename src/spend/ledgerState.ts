/**
 * One account's spend ledger as data, and every operation on it as a pure function: the same rules whether the
 * ledger lives in a file of the store folder or in Redis (both backends read the state, apply one of these, and
 * write it back atomically). An entry is one paid (or possibly paid) submit: reserved before the POST, given back
 * when the POST provably created no task, settled at the cost the API reported. The window is a rolling 24 hours
 * (`inWindow` decides what is still in it). Prices seen per (model, parameters) are kept for the next estimate.
 */
import { z } from 'zod';

import { processOwnerSchema, type ProcessOwner } from '../coordination/ownerLiveness';

export const LEDGER_VERSION = 1;
/** The rolling window of the daily limits. */
export const WINDOW_MS = 24 * 60 * 60_000;

/**
 * The time the spend ledger keeps: the wall clock (shared by every process and machine), plus this machine's
 * monotonic clock and boot id. An entry made on the same boot leaves the 24-hour window by the monotonic clock,
 * so setting the wall clock forward (by hand, or a bad NTP step) never lifts a limit early; an entry from another
 * machine or an earlier boot goes by the wall clock. Setting the wall clock back keeps entries longer (never less).
 */
export interface LedgerClock {
	/** Epoch ms. */
	wall: number;
	/** Milliseconds on this machine's monotonic clock (since boot), when `boot` is known. */
	mono?: number;
	/** This boot's id (Linux: /proc/sys/kernel/random/boot_id); undefined: the monotonic clock is not used. */
	boot?: string;
}

/** True while an entry made at `entry` is inside the window at `clock`. */
export function inWindow(entry: { at: number; mono?: number; boot?: string }, clock: LedgerClock): boolean {
	if (entry.boot !== undefined && entry.boot === clock.boot && entry.mono !== undefined && clock.mono !== undefined) {
		return clock.mono - entry.mono < WINDOW_MS;
	}
	return clock.wall - entry.at < WINDOW_MS;
}

const entrySchema = z.object({
	id: z.string().min(1),
	/** Wall clock (epoch ms) when reserved. */
	at: z.number(),
	/** Monotonic clock (ms since boot) when reserved, and that boot's id: the window of an entry made on this boot. */
	mono: z.number().optional(),
	boot: z.string().optional(),
	/** The reserving process (ownerLiveness.ts): a dead one's unpriced job stops holding others back. Older entries have none. */
	owner: processOwnerSchema.optional(),
	/**
	 * Credits: the estimate while reserved, then the API's figure; null: the price was not known (and still is not).
	 * Never negative: a negative entry would lift the limit, so a ledger holding one is damaged (read fails closed).
	 */
	credits: z.number().nonnegative().nullable(),
	state: z.enum(['reserved', 'sent', 'final']),
	priceKey: z.string(),
	/** An unpriced entry holds back other unpriced reservations until it is priced, final, or this time (wall ms). */
	blocksUntil: z.number().optional(),
});

export const ledgerStateSchema = z.object({
	v: z.literal(LEDGER_VERSION),
	rev: z.number().int().nonnegative(),
	entries: z.array(entrySchema),
	/** The cost this account last saw per price key (model and the parameters that set the price). */
	prices: z.record(z.object({ credits: z.number().nonnegative(), at: z.number() })),
	/**
	 * Per model: when a job last reached Ready without the API saying what it cost (for that model the credit limit
	 * cannot be enforced; a relay may price images and not clips). Cleared by the model's next reported cost.
	 */
	noCost: z.record(z.number()).optional(),
	/** Entries removed (refunds) that another copy of the ledger must remove too (the Redis sync), with when. */
	removed: z.array(z.object({ id: z.string(), at: z.number() })).optional(),
});

export type LedgerEntry = z.infer<typeof entrySchema>;
export type LedgerState = z.infer<typeof ledgerStateSchema>;

export interface SpendLimits {
	/** Credits per rolling 24 h; undefined: none. */
	credits?: number;
	/** Paid jobs per rolling 24 h; undefined: none. */
	jobs?: number;
}

/** True when either daily limit is set. */
export function hasDailyLimit(limits: SpendLimits): boolean {
	return limits.credits !== undefined || limits.jobs !== undefined;
}

export type Spent = ReturnType<typeof spentIn>;

export interface ReserveRequest {
	id: string;
	/** priceBook.ts: the job's price key. */
	priceKey: string;
	/** The model's list price for these parameters (pricebook.ts), if it has one. */
	listPrice?: number;
	/** The credential's daily limits (empty: none). */
	limits: SpendLimits;
	/** How long an unpriced reservation holds back others at most (the job's timeout). */
	blockMs: number;
	owner: ProcessOwner;
}

export type ReserveOutcome =
	| { kind: 'reserved'; entry: LedgerEntry; spent: Spent; creditLimitEnforced: boolean }
	| { kind: 'refused'; limit: 'credits' | 'jobs'; spent: Spent; price?: number }
	| { kind: 'wait'; spent: Spent; reason: 'unpriced' };

/**
 * How long a removal is remembered for the sync of another copy, and how many at most (a 429 storm gives back a
 * reservation per refused POST). A removal forgotten before a sync only leaves its entry counted: never less spend.
 */
const REMOVED_KEPT_MS = 60 * 60_000;
const REMOVED_KEPT_MAX = 2000;
/** The model of a price key (`<model>:<digest>`). */
export function modelOf(priceKey: string): string {
	return priceKey.split(':', 1)[0];
}

/** Credits are compared with this slack (costs like 4.5 add up in binary floating point). */
const EPSILON = 1e-9;

export function emptyLedger(): LedgerState {
	return { v: LEDGER_VERSION, rev: 0, entries: [], prices: {} };
}

/**
 * The entries still in the 24-hour window, and what they add up to. An entry whose cost was never told (a clip still
 * generating, or an ambiguous submit whose price was unknown) counts at the price learned since for its key, else at
 * the highest price the account has seen, else 0 (it counts as a job either way).
 */
export function spentIn(state: LedgerState, clock: LedgerClock) {
	let credits = 0;
	let jobs = 0;
	let highest: number | undefined;
	for (const entry of state.entries) {
		if (!inWindow(entry, clock)) continue;
		jobs++;
		if (entry.credits !== null) {
			credits += entry.credits;
			continue;
		}
		highest ??= Math.max(0, ...Object.values(state.prices).map((price) => price.credits));
		credits += state.prices[entry.priceKey]?.credits ?? highest;
	}
	// Without floating-point dust (e.g. 0.1 + 0.2).
	return { credits: Math.round(credits * 1e6) / 1e6, jobs };
}

/** The window only: entries past it leave, removals older than an hour too; `state` itself when nothing leaves (nothing to write). */
function pruned(state: LedgerState, clock: LedgerClock): LedgerState {
	const entries = state.entries.filter((entry) => inWindow(entry, clock));
	const removed = (state.removed ?? []).filter((r) => clock.wall - r.at < REMOVED_KEPT_MS).slice(-REMOVED_KEPT_MAX);
	if (entries.length === state.entries.length && removed.length === (state.removed?.length ?? 0)) return state;
	return { ...state, entries, ...(removed.length > 0 ? { removed } : { removed: undefined }) };
}

/** True when two states hold the same (their revisions aside; a merge always makes a new one): nothing to write. */
export function sameLedger(a: LedgerState, b: LedgerState): boolean {
	return a === b || JSON.stringify({ ...a, rev: 0 }) === JSON.stringify({ ...b, rev: 0 });
}

/**
 * Reserve one job's share: refused when it would pass the job limit or the credit limit (at its estimate); an
 * unpriced job (no price known) under a credit limit waits while another unpriced one is out, so they go one at a
 * time until an answer tells the price. Where the API reports no cost, the credit limit is not enforced.
 * `alive(entry)`: whether the entry's owner is alive (a dead owner's entry no longer holds others back; it still counts).
 */
export function reserve(
	state: LedgerState,
	request: ReserveRequest,
	clock: LedgerClock,
	alive: (entry: LedgerEntry) => boolean = () => true,
): { state: LedgerState; result: ReserveOutcome } {
	const current = pruned(state, clock);
	const spent = spentIn(current, clock);
	const { limits } = request;
	if (limits.jobs !== undefined && spent.jobs + 1 > limits.jobs) return { state: current, result: { kind: 'refused', limit: 'jobs', spent } };
	// Not where the API reported no cost for this model's last finished job of the account.
	const creditLimitEnforced = limits.credits !== undefined && current.noCost?.[modelOf(request.priceKey)] === undefined;
	// The price this account last saw for the key, else the list price.
	const estimate = current.prices[request.priceKey]?.credits ?? request.listPrice;
	const credits = estimate ?? null;
	if (creditLimitEnforced) {
		const limit = limits.credits!;
		if (estimate !== undefined && spent.credits + estimate > limit + EPSILON) {
			return { state: current, result: { kind: 'refused', limit: 'credits', spent, price: estimate } };
		}
		if (estimate === undefined) {
			if (spent.credits >= limit - EPSILON) return { state: current, result: { kind: 'refused', limit: 'credits', spent } };
			// Another unpriced entry still holds back unpriced reservations.
			const blocking = (entry: LedgerEntry) => entry.credits === null && entry.state !== 'final' && (entry.blocksUntil ?? 0) > clock.wall && alive(entry);
			if (current.entries.some(blocking)) return { state: current, result: { kind: 'wait', spent, reason: 'unpriced' } };
		}
	}
	const entry: LedgerEntry = {
		id: request.id,
		at: clock.wall,
		...(clock.mono === undefined ? {} : { mono: clock.mono }),
		...(clock.boot === undefined ? {} : { boot: clock.boot }),
		owner: request.owner,
		credits,
		state: 'reserved',
		priceKey: request.priceKey,
		...(credits === null ? { blocksUntil: clock.wall + request.blockMs } : {}),
	};
	const next = { ...current, rev: current.rev + 1, entries: [...current.entries, entry] };
	return { state: next, result: { kind: 'reserved', entry, spent: spentIn(next, clock), creditLimitEnforced } };
}

/** The reservation `id` goes back (its POST provably created no task). */
export function refund(state: LedgerState, id: string, clock: LedgerClock): LedgerState {
	const current = pruned(state, clock);
	if (!current.entries.some((entry) => entry.id === id)) return current;
	return {
		...current,
		rev: current.rev + 1,
		entries: current.entries.filter((entry) => entry.id !== id),
		removed: [...(current.removed ?? []), { id, at: clock.wall }].slice(-REMOVED_KEPT_MAX),
	};
}

/**
 * The submit was acknowledged (`cost` when the answer carried one) or the job ended (`final`; `ready`: it reached
 * Ready). A finished job the API never priced marks the account as not reporting cost. `known`: the entry as the
 * caller reserved it, for an entry this copy of the ledger does not hold (it was reserved in Redis and Redis went
 * away): it is put back first, so the spend is never lost.
 */
export function settle(
	state: LedgerState,
	update: { id: string; cost?: number; final: boolean; ready?: boolean; known?: LedgerEntry },
	clock: LedgerClock,
): LedgerState {
	let current = pruned(state, clock);
	let entry = current.entries.find((e) => e.id === update.id);
	if (!entry && update.known && inWindow(update.known, clock) && !(current.removed ?? []).some((r) => r.id === update.id)) {
		entry = update.known;
		current = { ...current, entries: [...current.entries, entry] };
	}
	if (entry) {
		const changed: LedgerEntry = {
			...entry,
			state: update.final ? 'final' : entry.state === 'reserved' ? 'sent' : entry.state,
			...(update.cost === undefined ? {} : { credits: update.cost }),
		};
		if (changed.credits !== null || changed.state === 'final') delete changed.blocksUntil;
		current = { ...current, entries: current.entries.map((e) => (e.id === entry!.id ? changed : e)) };
		if (update.cost !== undefined) {
			// The reported cost is the price of the entry's key from now on, and clears its model's no-cost mark.
			const { [modelOf(entry.priceKey)]: _dropped, ...noCost } = current.noCost ?? {};
			const { noCost: _all, ...rest } = current;
			current = { ...rest, prices: { ...current.prices, [entry.priceKey]: { credits: update.cost, at: clock.wall } }, ...(Object.keys(noCost).length > 0 ? { noCost } : {}) };
		}
	}
	if (update.final && update.cost === undefined && update.ready) {
		const model = modelOf(entry?.priceKey ?? update.known?.priceKey ?? '');
		current = { ...current, noCost: { ...current.noCost, [model]: clock.wall } };
	}
	return { ...current, rev: current.rev + 1 };
}

/**
 * `other`'s entries merged into `state` (the sync of two copies of one ledger): entries by id (a final or priced
 * one wins over one still reserved), removals applied, the newer price per key, the newer no-cost mark.
 */
export function merge(state: LedgerState, other: LedgerState, clock: LedgerClock): LedgerState {
	const removed = new Map<string, number>();
	for (const r of [...(state.removed ?? []), ...(other.removed ?? [])]) removed.set(r.id, Math.max(r.at, removed.get(r.id) ?? 0));
	const byId = new Map<string, LedgerEntry>();
	for (const entry of [...state.entries, ...other.entries]) {
		if (removed.has(entry.id)) continue;
		const seen = byId.get(entry.id);
		byId.set(entry.id, seen ? later(seen, entry) : entry);
	}
	const prices = { ...state.prices };
	for (const [key, price] of Object.entries(other.prices)) if (!prices[key] || prices[key].at < price.at) prices[key] = price;
	const noCost: Record<string, number> = {};
	for (const [model, at] of [...Object.entries(state.noCost ?? {}), ...Object.entries(other.noCost ?? {})]) {
		const newestPrice = Math.max(0, ...Object.entries(prices).filter(([key]) => modelOf(key) === model).map(([, p]) => p.at));
		if (at > newestPrice) noCost[model] = Math.max(at, noCost[model] ?? 0);
	}
	const merged: LedgerState = {
		v: LEDGER_VERSION,
		rev: Math.max(state.rev, other.rev) + 1,
		entries: [...byId.values()],
		prices,
		...(Object.keys(noCost).length > 0 ? { noCost } : {}),
		...(removed.size > 0 ? { removed: [...removed].map(([id, at]) => ({ id, at })) } : {}),
	};
	return pruned(merged, clock);
}

const STATE_ORDER = { reserved: 0, sent: 1, final: 2 } as const;

/** Of two copies of one entry, the one further along (final over sent over reserved; priced over unpriced). */
function later(a: LedgerEntry, b: LedgerEntry): LedgerEntry {
	if (STATE_ORDER[a.state] !== STATE_ORDER[b.state]) return STATE_ORDER[a.state] > STATE_ORDER[b.state] ? a : b;
	return a.credits === null ? b : a;
}
