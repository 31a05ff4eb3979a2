/**
 * Every test gets its own empty result store (a temp folder through COMFLY_STORE_DIR, and new process-wide
 * settings, store, Redis connection and account limiter), so no test is served from another test's results,
 * each test starts with the configured account limit (not one adapted to an earlier test's 429s), and the
 * default path (Cache: Reuse) is exercised everywhere. Loaded by jest.config.js (setupFilesAfterEnv).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { resetProcessWide } from '../../src/processWide';

const folders: string[] = [];

/** What a test starts without: read again (settings) or built again (the rest) on first use. */
const PER_TEST = ['settings', 'redis', 'store', 'accountLimiter', 'spendLedger', 'newJobsPerExecution', 'spendAccounts'] as const;

/** Point the process at a new, empty store folder (settings read again, the store and its Redis forgotten). */
async function useFreshStore(): Promise<string> {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'flux-test-store-'));
	folders.push(dir);
	process.env.COMFLY_STORE_DIR = dir;
	await resetProcessWide(PER_TEST);
	return dir;
}

beforeEach(async () => {
	await useFreshStore();
});

afterAll(async () => {
	// The process-wide Redis connection (if any) must not outlive the file.
	await resetProcessWide(PER_TEST);
	for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 5 }); // retried: a background write of the store may still land in it (ENOTEMPTY)
});
