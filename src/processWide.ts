/**
 * Process-wide state: one value per name per process, kept on `globalThis` under
 * `Symbol.for('n8n-nodes-flux-concurrent.<name>')`, created on first use; `resetProcessWide` (tests) forgets it.
 *
 * Why globalThis and not a module variable: n8n can load this package more than once in one process. It
 * re-requires a community package when it is reinstalled or updated (the old module objects stay alive for
 * jobs still running), and one n8n can find two copies on disk (N8N_CUSTOM_EXTENSIONS and ~/.n8n/nodes, or a
 * nested node_modules). Each copy has its own module variables, but every copy must share one pool (else each
 * copy runs its own 30 workers and Collect in one copy never finds a job submitted through the other), one
 * result store and journal (else two copies pay twice for one job), one Redis connection, one account limiter
 * and one poll rate cap per account (else the API sees twice the load the limits allow). `Symbol.for` is the
 * same symbol in every copy, so every copy reaches the same value.
 *
 * Values should be plain objects and instances whose methods do the work: two copies see the same object, but
 * `instanceof` against the other copy's class is false.
 */

/** Every name, in the order values may depend on each other (a later one may use an earlier one). */
export const PROCESS_WIDE_NAMES = [
	'settings',
	'redis',
	'poolSet',
	'store',
	'accountLimiter',
	'pollShared',
	'imageFlights',
	'videoFlights',
	'referenceImages',
	'spendLedger',
	'newJobsPerExecution',
	'spendAccounts',
	'occurrences',
] as const;

export type ProcessWideName = (typeof PROCESS_WIDE_NAMES)[number];

const PREFIX = 'n8n-nodes-flux-concurrent.';

type Holder = Record<symbol, unknown>;

const symbolOf = (name: ProcessWideName): symbol => Symbol.for(PREFIX + name);
const holder = (): Holder => globalThis as unknown as Holder;

/** The process's value under `name`, created by `create` on first use (an `undefined` result is kept too). */
export function processWide<T>(name: ProcessWideName, create: () => T): T {
	const key = symbolOf(name);
	const all = holder();
	if (!(key in all)) all[key] = create();
	return all[key] as T;
}

/**
 * Tests only: forgets the values under `names` (default: all), latest-dependent first, at once (the next
 * `processWide` call creates a new one); the promise settles once each forgotten value with a `close()` method
 * has been closed (close errors are ignored). The pool set has no close: its jobs run on, unreachable.
 */
export async function resetProcessWide(names: readonly ProcessWideName[] = PROCESS_WIDE_NAMES): Promise<void> {
	const all = holder();
	const forgotten: unknown[] = [];
	for (const name of PROCESS_WIDE_NAMES.filter((n) => names.includes(n)).reverse()) {
		const key = symbolOf(name);
		forgotten.push(all[key]);
		delete all[key];
	}
	for (const value of forgotten) {
		const close = (value as { close?: unknown } | undefined)?.close;
		if (typeof close === 'function') await Promise.resolve().then(() => close.call(value)).catch(() => undefined);
	}
}
