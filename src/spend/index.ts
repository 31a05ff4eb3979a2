/**
 * Spend control (knows nothing of n8n nodes): the ledger of what each API account spent in the last 24 hours
 * (store folder and Redis), the price book, the per-execution count of new jobs, each job's spend hook for the FLUX
 * client, the refusals (`SpendRefusal`) and the report's spend fields. See docs/ARCHITECTURE.md.
 */
export { FileLedger, LedgerUnusableError } from './fileLedger';
export * from './ledgerState';
export { jobBudget, SpendRefusal, UNPRICED_RETRY_MS, type BudgetDeps, type SpendHook, type SpendTerms } from './jobBudget';
export { NewJobsPerExecution, MAX_EXECUTION_COUNTS } from './newJobsPerExecution';
export { priceKey } from './priceBook';
export { RedisLedger, SPEND_REDIS_PREFIX } from './redisLedger';
export { newJobsPerExecution, recentAccounts, RecentAccounts, spendBudget, spendLedger } from './spendControl';
export { FALLBACK_REPORTED_MS, SpendLedger, spendFolder, systemClock, type LedgerPlace, type SpendRedis } from './spendLedger';
export { spendReport, type DailyLimits, type SpendReportFields, type SpentInWindow } from './spendReport';
