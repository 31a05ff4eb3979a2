/** The durable result store and write-ahead job journal ("never paying twice"). */
export { type JobKeyInput, canonicalJson, contentDigest, jobKey } from './jobKey';
export { type CacheBackend, type CacheEntry, cacacheBackend } from './cacheBackend';
export { type StoreHealth, StoreFaults } from './storeHealth';
export { type NewResultMeta, type PruneSummary, type ResultStoreOptions, type StoredResult, type StoredResultMeta, ResultStore } from './resultStore';
export { type JobJournalOptions, type JobStart, type JournalRecord, type JournalState, JobJournal } from './journal';
export { type CacheMode, type ResumeDecision, DEFAULT_CACHE_MODE, MAYBE_PAID_REASON, cacheModeSchema, resumeDecision } from './resumeDecision';
export { SingleFlight } from './singleFlight';
export { type OpenStoreOptions, type Store, getStore, openStore } from './openStore';
