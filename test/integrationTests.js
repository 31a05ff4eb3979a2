/**
 * The integration tests: the test files that start processes (a redis-server, forked or spawned Node processes,
 * `mount`, `npm pack`, a nested jest, `.ci/run`). They run with `npm run test:integration`
 * (jest.integration.config.js); `npm test` (jest.config.js) runs every other file under test/ but test/e2e.
 * test/testSuites.test.ts keeps this list exact: a file here starts a process, a file not here starts none.
 */
module.exports = [
	// A redis-server of the test's own (test/support/redisServer.ts).
	'test/accountLimit/leaseLapsed.redis.test.ts',
	'test/accountLimit/leaseRefresh.redis.test.ts',
	'test/accountLimit/redisLoss.redis.test.ts',
	'test/accountLimit/sharedLimit.redis.test.ts', // and forked processes sharing it
	'test/redis/closeAfterLoss.redis.test.ts',
	'test/redis/redisMessages.redis.test.ts',
	'test/redis/sharedRedis.redis.test.ts',
	'test/store/claims.redis.test.ts',
	'test/store/sharedJournal.redis.test.ts',
	'test/spend/spendLedgerMirror.redis.test.ts',
	'test/spend/redisSilence.redis.test.ts',
	'test/workflows/redisStall.engine.test.ts',
	'test/spend/ledgerFaults.test.ts', // and forked processes
	'test/spend/ledgerProcesses.test.ts', // and forked processes
	'test/fluxN8n/twoProcessBatch.test.ts', // and forked processes
	// Forked or spawned Node processes.
	'test/fluxN8n/killMidDownload.test.ts',
	'test/pool/unhandledRejections.test.ts',
	'test/store/claims.test.ts',
	'test/store/journalLogProcesses.test.ts',
	'test/store/twoProcesses.test.ts',
	// A tmpfs mounted for the test (`mount`, needs root).
	'test/workflows/storeFaults.engine.test.ts',
	// The real-n8n tooling, the packed tarball, the end-to-end suite's version check (a nested jest), .ci/run itself.
	'test/n8n/realN8nTooling.test.ts',
	'test/n8n/e2eVersionCheck.test.ts',
	'test/packaging/pack.test.ts',
	'test/packaging/ciRun.test.ts',
];
