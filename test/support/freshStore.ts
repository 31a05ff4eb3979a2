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

/** Point the process at a new, empty store folder (and forget the old store instance). */
export function useFreshStore(): string {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'flux-test-store-'));
	folders.push(dir);
	process.env.COMFLY_STORE_DIR = dir;
	delete (globalThis as Record<symbol, unknown>)[STORE_SYMBOL];
	return dir;
}

beforeEach(() => {
	useFreshStore();
});

afterAll(() => {
	for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});
