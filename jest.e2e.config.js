/**
 * End-to-end tests (npm run test:e2e): the example workflows and the demo in a REAL n8n, against the
 * relay simulator on 127.0.0.1. FLUX_E2E_N8N picks the n8n version of the support matrix
 * (scripts/n8n/versions.ts; default the oldest); `.ci/run` runs this suite once per version. The first
 * run of a version installs it into ~/.cache (about 6 minutes, once).
 * @type {import('jest').Config}
 */
module.exports = {
	displayName: `e2e n8n ${process.env.FLUX_E2E_N8N || 'oldest'}`,
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	// FLUX_E2E_N8N is checked once, before any test file: a bad value fails the run up front, once.
	globalSetup: '<rootDir>/test/e2e/globalSetup.ts',
	// One test file at a time, in one worker: each starts n8n processes and a simulator.
	maxWorkers: 1,
	// Per test; the n8n install (cold cache) has its own, longer timeout in beforeAll.
	testTimeout: 10 * 60 * 1000,
	verbose: true,
};
