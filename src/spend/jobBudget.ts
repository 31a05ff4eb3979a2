/**
 * One job's spend hook (src/flux/budget.ts) on the spend ledger and the per-execution count: `reserve` takes the
 * node's place in the execution (Max New Jobs per Execution) and reserves the account's share in the ledger (Daily
 * Credit Limit / Daily Job Limit); `unsent` gives both back; `accepted` and `ended` settle at the API's cost. A job
 * without any limit gets no hook at all. A refused job fails with a `SpendRefusal` (cost 0: nothing was paid; the
 * glue hands it to the FLUX client as `budget_exceeded`) naming the limit, what was spent and where to raise it.
 */
import { randomUUID } from 'node:crypto';

import { LEDGER_UNUSABLE } from './fileLedger';
import { hasDailyLimit, type LedgerEntry, type ReserveRequest, type Spent } from './ledgerState';
import type { NewJobsPerExecution } from './newJobsPerExecution';
import type { SpendLedger } from './spendLedger';

/** What a job's spend control needs to know, made when the job is prepared (no n8n context needed later). */
export interface SpendTerms extends Omit<ReserveRequest, 'id' | 'owner'> {
	/** src/account's accountId of the job's credential. */
	account: string;
	/** Max New Jobs per Execution of the node (absent: none). */
	perExecution?: { key: string; max: number; node: string };
}

/** A job waiting for another's price (one at a time while none is known) looks again this often (ms). */
export const UNPRICED_RETRY_MS = 200;

/** A job's spend hook, called by the FLUX client around each submit (the shape of its `SubmitBudget`, src/flux/budget.ts). */
export type SpendHook = Pick<JobBudget, 'beforePost' | 'reserve' | 'unsent' | 'accepted' | 'ended'>;

/** A job a spend limit stopped before it was sent (nothing was paid). */
export class SpendRefusal extends Error {
	readonly kind = 'budget_exceeded';
	readonly cost = 0;
}

export interface BudgetDeps {
	ledger: SpendLedger;
	perExecution: NewJobsPerExecution;
}

/** The job's hook, or undefined when no limit applies to it. */
export function jobBudget(terms: SpendTerms | undefined, deps: () => BudgetDeps): SpendHook | undefined {
	const limited = terms !== undefined && (hasDailyLimit(terms.limits) || terms.perExecution !== undefined);
	return limited ? new JobBudget(terms, deps()) : undefined;
}

class JobBudget {
	private placeTaken = false;
	private reservation?: LedgerEntry;

	constructor(
		private readonly terms: SpendTerms,
		private readonly deps: BudgetDeps,
	) {}

	/** Before each POST starts: under a daily limit, a Redis restarted a moment ago is first given the time to get every machine's spend back (SpendLedger.restartSettled). */
	async beforePost(signal: AbortSignal): Promise<void> {
		if (hasDailyLimit(this.terms.limits)) await this.restartSettled(signal);
	}

	/** The ledger's restartSettled; none on a ledger made by an older copy of the package (process-wide, kept across an update). */
	private async restartSettled(signal: AbortSignal): Promise<void> {
		const ledger = this.deps.ledger as Partial<Pick<SpendLedger, 'restartSettled'>>;
		if (typeof ledger.restartSettled === 'function') await ledger.restartSettled(signal);
	}

	async reserve(signal: AbortSignal): Promise<void> {
		const { perExecution } = this.terms;
		if (perExecution && !this.placeTaken) {
			if (!this.deps.perExecution.take(perExecution.key, perExecution.max)) throw executionLimitReached(perExecution.max, perExecution.node);
			this.placeTaken = true;
		}
		if (!hasDailyLimit(this.terms.limits) || this.reservation) return;
		try {
			this.reservation = await this.reserveInLedger(signal);
		} catch (error) {
			this.giveBackPlace();
			// By its code, not instanceof: the ledger is process-wide, so its error may come from another copy of the package.
			throw (error as { code?: unknown } | undefined)?.code === LEDGER_UNUSABLE ? ledgerUnusable((error as Error).message) : error;
		}
	}

	private async reserveInLedger(signal: AbortSignal): Promise<LedgerEntry | undefined> {
		const { account, limits, priceKey, listPrice, blockMs } = this.terms;
		for (;;) {
			await this.restartSettled(signal); // at once, unless a restart was noticed since beforePost
			if (signal.aborted) return undefined; // the client stops the job as cancelled
			const outcome = await this.deps.ledger.reserve(account, { id: randomUUID(), priceKey, listPrice, limits, blockMs });
			if (outcome.kind === 'reserved') return outcome.entry;
			if (outcome.kind === 'refused') {
				throw outcome.limit === 'jobs' ? jobLimitReached(limits.jobs!, outcome.spent) : creditLimitReached(limits.credits!, outcome.spent, outcome.price);
			}
			// Another job of this account whose price nobody knows yet is out: wait for its answer.
			await this.deps.ledger.changed(account, UNPRICED_RETRY_MS, signal);
			if (signal.aborted) return undefined; // the client stops the job as cancelled
		}
	}

	unsent(): void {
		this.giveBackPlace();
		const reservation = this.reservation;
		this.reservation = undefined;
		if (reservation) this.deps.ledger.track(this.deps.ledger.refund(this.terms.account, reservation.id));
	}

	accepted(cost: number | undefined): void {
		const known = this.reservation;
		if (known) this.deps.ledger.track(this.deps.ledger.settle(this.terms.account, { id: known.id, cost, final: false, known }));
	}

	ended(outcome: { cost?: number; ready: boolean }): void {
		const known = this.reservation;
		this.reservation = undefined;
		if (known) this.deps.ledger.track(this.deps.ledger.settle(this.terms.account, { id: known.id, cost: outcome.cost, final: true, ready: outcome.ready, known }));
	}

	private giveBackPlace(): void {
		if (!this.placeTaken || !this.terms.perExecution) return;
		this.placeTaken = false;
		this.deps.perExecution.giveBack(this.terms.perExecution.key);
	}
}

const credits = (n: number) => `${Math.round(n * 100) / 100} credit${n === 1 ? '' : 's'}`;
const jobs = (n: number) => `${n} job${n === 1 ? '' : 's'}`;

function jobLimitReached(limit: number, spent: Spent): SpendRefusal {
	return new SpendRefusal(
		`Not sent: the daily job limit of the FLUX API credential is reached (${jobs(spent.jobs)} of ${limit} in the last 24 hours, ${credits(spent.credits)} spent). ` +
			`Raise "Daily Job Limit" on the FLUX API credential, or wait until earlier jobs leave the 24-hour window.`,
	);
}

function creditLimitReached(limit: number, spent: Spent, price: number | undefined): SpendRefusal {
	const costs = price === undefined ? '' : `, and this job costs about ${credits(price)}`;
	return new SpendRefusal(
		`Not sent: the daily credit limit of the FLUX API credential would be passed (${credits(spent.credits)} of ${limit} spent in the last 24 hours by ${jobs(spent.jobs)}${costs}). ` +
			`Raise "Daily Credit Limit" on the FLUX API credential, or wait until earlier jobs leave the 24-hour window.`,
	);
}

function executionLimitReached(limit: number, node: string): SpendRefusal {
	return new SpendRefusal(
		`Not sent: node "${node}" may send at most ${jobs(limit)} in one execution, and ${limit} ${limit === 1 ? 'was' : 'were'} sent (new paid jobs; results from the store do not count). ` +
			`Raise Options → Max New Jobs per Execution on that node (0 = no limit).`,
	);
}

/** The ledger could not be used: the daily limits cannot be checked, so the job is not sent (fail closed). */
function ledgerUnusable(why: string): SpendRefusal {
	return new SpendRefusal(`Not sent: the daily limits of the FLUX API credential could not be checked because ${why}. Jobs under a daily limit are not sent until they can be.`);
}
