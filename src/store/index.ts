/** The durable result store and write-ahead job journal ("never paying twice"). */
export { type JobKeyInput, canonicalJson, contentDigest, jobKey } from './jobKey';
export { type CacheBackend, type CacheEntry, cacacheBackend } from './cacheBackend';
export { type StoreHealth, RECENT_STORE_FAULT_MS, StoreFaults } from './storeHealth';
export { type NewResultMeta, type PruneSummary, type ResultStoreOptions, type StoredResult, type StoredResultMeta, ResultStore, partKey } from './resultStore';
export { type JobJournalOptions, type JobStart, type JournalMirror, type JournalPruneOptions, type JournalRecord, type JournalState, JobJournal } from './journal';
export { JOURNAL_REDIS_PREFIX, redisJournalMirror } from './journalMirror';
export { type StoreBoundParts, type StoreSize, DOWNLOAD_FOLDERS, PRUNE_EVERY_MS, StoreBound } from './storeBound';
export { ResultsInUse } from './resultsInUse';
export { CLAIMS_SUBFOLDER, Claims, type ClaimHandle, type ClaimsOptions, DEFAULT_CLAIM_TIMING, type ClaimTiming } from './claims';
export { type CacheMode, type ResumeDecision, DEFAULT_CACHE_MODE, MAYBE_PAID_REASON, cacheModeSchema, resumeDecision } from './resumeDecision';
export { SingleFlight } from './singleFlight';
export { type OpenStoreOptions, type Store, getStore, openStore } from './openStore';
export { ExecutionOccurrences, OCCURRENCE_IDLE_MS, OCCURRENCE_MAX_EXECUTIONS, type ExecutionOccurrencesOptions } from './occurrences';
