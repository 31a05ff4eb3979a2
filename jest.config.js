/**
 * `npm test`: the unit, engine (n8n's WorkflowExecute in process) and relay-simulator tests. They start no
 * process: the ones that do (`*.integration.test.ts`) run with `npm run test:integration`, the real-n8n
 * end-to-end tests (test/e2e) with `npm run test:e2e`.
 * @type {import('jest').Config}
 */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/test/e2e/', '\\.integration\\.test\\.ts$'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	// A timeout only catches a hang, never a speed check. The heaviest tests (30 jobs through the simulator: about
	// 2.5 s of CPU each) took 13 s with the shared 2-core machine at load average 12 and passed 30 s at load 39.
	testTimeout: 120_000,
	// The tests mostly wait (simulated latencies, timers, sockets), so more workers than cores pay off: on the
	// shared 2-core machine jest's default (cores − 1 = one worker) ran this suite in 209 s, four workers in 70 s.
	maxWorkers: 4,
	// Every test gets its own empty result store (COMFLY_STORE_DIR in a temp folder).
	setupFilesAfterEnv: ['<rootDir>/test/support/freshStore.ts'],
};
