/**
 * The report's view of spend: for the accounts under a daily limit that this batch's jobs used (or, in a new
 * process, the collector's own credential), what was spent in the last 24 hours and the limits; and the notes:
 * a credit limit the API's answers cannot enforce (no cost reported), limits held per machine (Redis away).
 */
import { hasDailyLimit, type SpendLimits, type Spent } from './ledgerState';
import { recentAccounts, spendLedger } from './spendControl';

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
	const recent = recentAccounts();
	const accounts = recent.accountsOf(jobIds);
	const own = recent.knowsAny(jobIds) ? undefined : await fallback?.();
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
