/**
 * One job's spend hook (src/flux/budget.ts) on the spend ledger and the per-execution count: right before each
 * submit POST it takes the node's place in the execution (Max New Jobs per Execution) and reserves the account's
 * share in the ledger (Daily Credit Limit / Daily Job Limit); a POST that provably created no task gives both back;
 * the acknowledgement and the job's end settle the reservation at the cost the API reported. A job without any
 * limit gets no hook at all (nothing changes for it).
 */
import { randomUUID } from 'node:crypto';

import type { SubmitBudget } from '../flux';
import { LedgerUnusableError } from './fileLedger';
import { hasDailyLimit, type LedgerEntry, type ReserveRequest } from './ledgerState';
import type { NewJobsPerExecution } from './newJobsPerExecution';
import type { SpendLedger } from './spendLedger';
import { creditLimitReached, executionLimitReached, jobLimitReached, ledgerUnusable } from './spendRefusal';

/** What a job's spend control needs to know, made when the job is prepared (no n8n context needed later). */
export interface SpendTerms extends Omit<ReserveRequest, 'id' | 'owner'> {
	/** src/account's accountId of the job's credential. */
	account: string;
	/** Max New Jobs per Execution of the node (absent: none). */
	perExecution?: { key: string; max: number; node: string };
}

/** A job waiting for another's price (one at a time while none is known) looks again this often (ms). */
export const UNPRICED_RETRY_MS = 200;

export interface BudgetDeps {
	ledger: SpendLedger;
	perExecution: NewJobsPerExecution;
}

/** The job's hook, or undefined when no limit applies to it. */
export function jobBudget(terms: SpendTerms | undefined, deps: () => BudgetDeps): SubmitBudget | undefined {
	const limited = terms !== undefined && (hasDailyLimit(terms.limits) || terms.perExecution !== undefined);
	return limited ? new JobBudget(terms, deps()) : undefined;
}

class JobBudget implements SubmitBudget {
	private placeTaken = false;
	private reservation?: LedgerEntry;

	constructor(
		private readonly terms: SpendTerms,
		private readonly deps: BudgetDeps,
	) {}

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
			throw error instanceof LedgerUnusableError ? ledgerUnusable(error.message) : error;
		}
	}

	private async reserveInLedger(signal: AbortSignal): Promise<LedgerEntry | undefined> {
		const { account, limits, priceKey, listPrice, blockMs } = this.terms;
		for (;;) {
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
