/** The durable result store and write-ahead job journal ("never paying twice"). */
export { type JobKeyInput, canonicalJson, contentDigest, jobKey } from './jobKey';
export { type CacheBackend, type CacheEntry, cacacheBackend } from './cacheBackend';
export { StoreFaults } from './storeHealth';
export { type NewResultMeta, type ResultStoreOptions, type StoredResultMeta, ResultStore, partKey } from './resultStore';
export { type JobJournalOptions, type JobStart, type JournalMirror, type JournalRecord, type JournalState, JobJournal } from './journal';
export { redisJournalMirror } from './journalMirror';
export { CLAIMS_SUBFOLDER, Claims, type ClaimHandle, type ClaimsOptions, DEFAULT_CLAIM_TIMING, type ClaimTiming } from './claims/claims';
export { type CacheMode, MAYBE_PAID_REASON } from './cacheMode';
export { SingleFlight } from './singleFlight';
export { type OpenStoreOptions, type Store, getStore, openStore } from './openStore';
export { ExecutionOccurrences, OCCURRENCE_IDLE_MS, OCCURRENCE_MAX_EXECUTIONS, type ExecutionOccurrencesOptions } from './occurrences';
