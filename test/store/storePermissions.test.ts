/**
 * "Files readable by the n8n user only" also when COMFLY_STORE_DIR names a folder that already exists with
 * open permissions (a shared /data, a mounted volume): the store's own folders are 0700, so no other user can
 * reach a stored image or the journal through them.
 */
import { chmodSync, rmSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { apiKeyHash } from '../../src/account';
import { openStore } from '../../src/store';
import { useTempDir } from './tempStore';

const temp = useTempDir();

it('an existing open folder: results/ and journal/ are created 0700 inside it', async () => {
	chmodSync(temp.dir, 0o755);
	const store = openStore({ dir: temp.dir, maxBytes: 1024 * 1024, ttlMs: 24 * 3600 * 1000 }, { warn: () => undefined });
	const start = { jobId: 'j1', apiStyle: 'relay', baseUrl: 'http://127.0.0.1:2', model: 'flux-3-image', apiKeyHash: apiKeyHash('k-1') };
	expect(await store.journal.submitting('k', start)).toBe(true);
	expect(await store.results.put('k', Buffer.from('img'), { mimeType: 'image/png', fileExtension: 'png' })).toBe(true);
	expect(statSync(temp.dir).mode & 0o777).toBe(0o755); // the user's own folder is left as it was
	expect(statSync(path.join(temp.dir, 'results')).mode & 0o077).toBe(0);
	expect(statSync(path.join(temp.dir, 'journal')).mode & 0o077).toBe(0);
});

it('a store folder deleted while n8n runs comes back 0700 on the next write, and the write succeeds', async () => {
	const dir = path.join(temp.dir, 'store');
	const store = openStore({ dir, maxBytes: 1024 * 1024, ttlMs: 24 * 3600 * 1000 }, { warn: () => undefined });
	const meta = { mimeType: 'image/png', fileExtension: 'png' };
	expect(await store.results.put('a', Buffer.from('one'), meta)).toBe(true);
	rmSync(dir, { recursive: true, force: true });
	expect(await store.results.put('b', Buffer.from('two'), meta)).toBe(true);
	expect((await store.results.get('b'))?.bytes.toString()).toBe('two');
	expect(statSync(dir).mode & 0o077).toBe(0);
	expect(statSync(path.join(dir, 'results')).mode & 0o077).toBe(0);
	expect(store.health()).toEqual({ ok: true });
});
