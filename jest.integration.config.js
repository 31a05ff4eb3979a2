/**
 * `npm run test:integration`: the tests that start processes (test/integrationTests.js: redis-server, forked
 * Node processes, a tmpfs, the packed tarball, a nested jest, `.ci/run`), with the unit suite's settings.
 * @type {import('jest').Config}
 */
const unit = require('./jest.config');
const integrationTests = require('./test/integrationTests');

module.exports = {
	...unit,
	displayName: 'integration',
	testMatch: integrationTests.map((file) => `<rootDir>/${file}`),
	testPathIgnorePatterns: ['/node_modules/'],
};
