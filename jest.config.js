/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// The real-n8n end-to-end test runs on its own (npm run test:e2e): it installs n8n.
	testPathIgnorePatterns: ['/node_modules/', '/test/e2e/'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	testTimeout: 30000,
	// Every test gets its own empty result store (COMFLY_STORE_DIR in a temp folder).
	setupFilesAfterEnv: ['<rootDir>/test/support/freshStore.ts'],
};
