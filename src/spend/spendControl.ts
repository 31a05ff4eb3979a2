/**
 * The process's spend control (processWide): the ledger on the store folder and the package's Redis, the
 * per-execution counts, and which accounts the recent jobs reserved for (so a collector's report can show those
 * accounts' balance). `spendBudget(terms)` is the hook a job passes to the FLUX client.
 */
import { settings } from '../config';
import { logWarning } from '../logger';
import * as path from 'node:path';

import { processWide } from '../processWide';
import { processRedis } from '../redis';
import { jobBudget, type SpendHook, type SpendTerms } from './jobBudget';
import { hasDailyLimit, type SpendLimits } from './ledgerState';
import { NewJobsPerExecution } from './newJobsPerExecution';
import { SpendLedger } from './spendLedger';

/** The account and daily limits of recent jobs (none: the job had no daily limit), by pool job id; bounded (the oldest leave first). */
export class RecentAccounts {
	private readonly jobs = new Map<string, { account: string; limits: SpendLimits } | undefined>();

	constructor(private readonly max = 10_000) {}

	/** Remembers the job's account when it is under a daily limit, and that this process ran it either way. */
	note(jobId: string, terms: SpendTerms | undefined): void {
		this.jobs.delete(jobId);
		this.jobs.set(jobId, terms && hasDailyLimit(terms.limits) ? { account: terms.account, limits: terms.limits } : undefined);
		while (this.jobs.size > this.max) this.jobs.delete(this.jobs.keys().next().value as string);
	}

	/** True when this process ran any of the jobs. */
	knowsAny(jobIds: readonly string[]): boolean {
		return jobIds.some((id) => this.jobs.has(id));
	}

	/** The accounts (with their latest limits) of the given jobs that ran here under a daily limit. */
	accountsOf(jobIds: readonly string[]): Map<string, SpendLimits> {
		const found = new Map<string, SpendLimits>();
		for (const id of jobIds) {
			const job = this.jobs.get(id);
			if (job) found.set(job.account, job.limits);
		}
		return found;
	}
}

/** The process's ledger (the store folder's `spend`, and Redis when configured). */
export function spendLedger(): SpendLedger {
	return processWide('spendLedger', () => new SpendLedger({ dir: path.join(settings().store.dir, 'spend'), redis: processRedis(), warn: logWarning }));
}

/** The accounts jobs of this process reserved for, with their limits. */
export function recentAccounts(): RecentAccounts {
	return processWide('spendAccounts', () => new RecentAccounts());
}

/** A job's spend hook for `GenerateOptions.budget`; undefined when no limit applies (then nothing is counted). */
export function spendBudget(terms: SpendTerms | undefined): SpendHook | undefined {
	return jobBudget(terms, () => ({ ledger: spendLedger(), perExecution: processWide('newJobsPerExecution', () => new NewJobsPerExecution()) }));
}
