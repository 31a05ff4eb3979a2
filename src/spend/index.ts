/**
 * Spend control (knows nothing of n8n nodes): the ledger of what each API account spent in the last 24 hours
 * (store folder and Redis), the price book, the per-execution count of new jobs, each job's spend hook for the FLUX
 * client, the refusals (`SpendRefusal`) and the report's spend fields. See docs/ARCHITECTURE.md.
 */
export { FileLedger, LedgerUnusableError } from './fileLedger';
export * from './ledgerState';
export { jobBudget, SpendRefusal, type SpendTerms } from './jobBudget';
export { NewJobsPerExecution } from './newJobsPerExecution';
export { priceKey } from './priceBook';
export { RedisLedger } from './redisLedger';
export { recentAccounts, spendBudget, spendLedger, spendReport } from './spendControl';
export { SpendLedger, systemClock } from './spendLedger';
