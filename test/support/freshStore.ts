/**
 * Every test gets its own empty result store (a temp folder through COMFLY_STORE_DIR, and a new
 * process-wide store instance), so no test is served from another test's results and the default
 * path (Cache: Reuse) is exercised everywhere. Loaded by jest.config.js (setupFilesAfterEnv).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const STORE_SYMBOL = Symbol.for('n8n-nodes-flux-concurrent.store');
const folders: string[] = [];

/** Forgets the process-wide store, closing its journal's Redis connection (if any). */
function closeStore(): void {
	const store = (globalThis as Record<symbol, { close?(): Promise<void> } | undefined>)[STORE_SYMBOL];
	delete (globalThis as Record<symbol, unknown>)[STORE_SYMBOL];
	void store?.close?.();
}

/** Point the process at a new, empty store folder (and forget the old store instance). */
export function useFreshStore(): string {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'flux-test-store-'));
	folders.push(dir);
	process.env.COMFLY_STORE_DIR = dir;
	closeStore();
	return dir;
}

const LIMITER_SYMBOL = Symbol.for('n8n-nodes-flux-concurrent.accountLimiter');

beforeEach(() => {
	useFreshStore();
	// Each test starts with the configured account limit, not one adapted to an earlier test's 429s.
	const limiter = (globalThis as Record<symbol, { close(): Promise<void> } | undefined>)[LIMITER_SYMBOL];
	delete (globalThis as Record<symbol, unknown>)[LIMITER_SYMBOL];
	void limiter?.close();
});

afterAll(async () => {
	closeStore();
	for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
	// The process-wide account limiter's Redis connection (if any) must not outlive the file.
	const limiter = (globalThis as Record<symbol, { close(): Promise<void> } | undefined>)[LIMITER_SYMBOL];
	delete (globalThis as Record<symbol, unknown>)[LIMITER_SYMBOL];
	await limiter?.close();
});
