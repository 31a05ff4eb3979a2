/**
 * `npm run test:integration`: the tests that start processes (`*.integration.test.ts`: redis-server, forked
 * Node processes, a tmpfs, the packed tarball, a nested jest, `.ci/run`), with the unit suite's settings.
 * @type {import('jest').Config}
 */
const unit = require('./jest.config');

module.exports = {
	...unit,
	displayName: 'integration',
	testMatch: ['<rootDir>/test/**/*.integration.test.ts'],
	testPathIgnorePatterns: ['/node_modules/'],
	// A timeout here only catches a hang; it is never a speed check (speed lives in `npm run bench`). These tests
	// start ts-node processes, redis-servers and nested jests on a shared, noisy 2-core machine, four files at once:
	// with the machine loaded (load average 25), three ts-node processes took 30 s just to start and the three-process
	// store churn test 50 s in all, past the unit suite's 30 s. So one generous bound for every test and hook here,
	// and none shorter in the files.
	testTimeout: 300_000,
};
