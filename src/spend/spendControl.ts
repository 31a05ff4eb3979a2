/**
 * The process's spend control (processWide): the ledger on the store folder and the package's Redis, the
 * per-execution counts, and which accounts the recent jobs reserved for (so a collector's report can show those
 * accounts' balance). `spendBudget(terms)` is the hook a job passes to the FLUX client; `spendReport` the report's
 * view of spend: what those accounts spent in the last 24 hours and the limits, and the notes (a credit limit the
 * API's answers cannot enforce, limits held per machine while Redis is away).
 */
import { settings } from '../config';
import { logWarning } from '../logger';
import * as path from 'node:path';

import { processWide } from '../processWide';
import { processRedis } from '../redis';
import { jobBudget, type SpendHook, type SpendTerms } from './jobBudget';
import { hasDailyLimit, type SpendLimits, type Spent } from './ledgerState';
import { NewJobsPerExecution, setNewest } from './newJobsPerExecution';
import { SpendLedger } from './spendLedger';

/** The account and daily limits of recent jobs (none: the job had no daily limit), by pool job id; bounded (the oldest leave first). */
export class RecentAccounts {
	private readonly jobs = new Map<string, { account: string; limits: SpendLimits } | undefined>();

	constructor(private readonly max = 10_000) {}

	/** Remembers the job's account when it is under a daily limit, and that this process ran it either way. */
	note(jobId: string, terms: SpendTerms | undefined): void {
		setNewest(this.jobs, jobId, terms && hasDailyLimit(terms.limits) ? { account: terms.account, limits: terms.limits } : undefined, this.max);
	}

	/** The accounts (with their latest limits) of the given jobs that ran here under a daily limit, and whether this process ran any of the jobs. */
	accountsOf(jobIds: readonly string[]): { ranAny: boolean; accounts: Map<string, SpendLimits> } {
		const accounts = new Map<string, SpendLimits>();
		for (const id of jobIds) {
			const job = this.jobs.get(id);
			if (job) accounts.set(job.account, job.limits);
		}
		return { ranAny: jobIds.some((id) => this.jobs.has(id)), accounts };
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

type AccountSpend = { account: string; spent: Spent & { window: '24h' }; limits: { dailyCreditLimit: number | null; dailyJobLimit: number | null } };
/** Report fields: `spent` and `limits` for one account; `spentByAccount` when the batch used several. */
export type SpendReportFields = Partial<Omit<AccountSpend, 'account'>> & { spentByAccount?: AccountSpend[] };

/**
 * The spend fields and notes of a report over `jobIds`; `fallback` (asked only when this process ran none of the jobs,
 * e.g. a collector retried in a new process): the collector's own credential's account and limits.
 */
export async function spendReport(
	jobIds: readonly string[],
	fallback?: () => Promise<{ account: string; limits: SpendLimits } | undefined>,
): Promise<{ fields: SpendReportFields; warnings: string[] }> {
	const { ranAny, accounts } = recentAccounts().accountsOf(jobIds);
	const own = ranAny ? undefined : await fallback?.();
	if (own && hasDailyLimit(own.limits)) accounts.set(own.account, own.limits);
	if (accounts.size === 0) return { fields: {}, warnings: [] };
	const ledger = spendLedger();
	const rows: AccountSpend[] = [];
	const warnings: string[] = [];
	for (const [account, limits] of accounts) {
		try {
			const balance = await ledger.balance(account);
			rows.push({ account, spent: { credits: balance.spent.credits, jobs: balance.spent.jobs, window: '24h' }, limits: { dailyCreditLimit: limits.credits ?? null, dailyJobLimit: limits.jobs ?? null } });
			if (balance.noCost.length > 0 && limits.credits !== undefined) {
				const jobLimit = limits.jobs === undefined ? 'no Daily Job Limit is set' : `its Daily Job Limit (${limits.jobs}) still is`;
				warnings.push(`The API reports no cost for this account's ${balance.noCost.join(', ')} jobs, so the Daily Credit Limit (${limits.credits}) of its FLUX API credential cannot be enforced for them; ${jobLimit}.`);
			}
		} catch (error) {
			warnings.push(`What the account spent could not be read: ${error instanceof Error ? error.message : String(error)}.`);
		}
	}
	warnings.push(...ledger.warnings());
	if (rows.length === 1) return { fields: { spent: rows[0].spent, limits: rows[0].limits }, warnings };
	return { fields: rows.length > 0 ? { spentByAccount: rows } : {}, warnings };
}
