/**
 * A claimant that waited for another owner takes what that owner stored meanwhile, even when the journal record
 * that should say so is lost or damaged (src/fluxN8n/ownedJob.ts): it never pays again for the one job both asked
 * for. A result stored before it asked is not "the owner's": under Refresh it still sends a new job.
 */
import * as path from 'node:path';

import { obtainOwned, type OwnedJobSteps } from '../../src/fluxN8n/ownedJob';
import { Claims, openStore, type CacheMode, type Store } from '../../src/store';
import { thisOwner } from '../../src/store/claims';
import { makeTempDir } from '../store/tempStore';
import { until } from '../support/until';

const FAST = { heartbeatMs: 50, waitMinMs: 5, waitMaxMs: 20 };
const IMAGE = Buffer.from('owner image bytes');

let temp: ReturnType<typeof makeTempDir>;
let store: Store;
beforeEach(() => {
	temp = makeTempDir();
	store = openStore({ dir: path.join(temp.dir, 'store'), maxBytes: 1024 ** 2, ttlMs: 86_400_000 }, { warn: () => undefined, claimTiming: FAST });
});
afterEach(() => temp.cleanup());

/** Steps over the real store; `sent` counts new (paid) jobs. */
function steps(key: string) {
	const sent: number[] = [];
	const job: OwnedJobSteps<string> = {
		readStored: async (storedSince = 0) => {
			const hit = await store.results.check(key);
			return hit && hit.storedAt >= storedSince ? `stored:${hit.taskId}` : undefined;
		},
		reattach: async () => undefined,
		sendNew: async () => {
			sent.push(1);
			return 'new job';
		},
	};
	return { job, sent };
}

/** Another process holds `key`'s claim while this one asks; it stores its result (its journal record lost), then lets go. */
async function waitForOwner(key: string, cacheMode: CacheMode, ownerStores: boolean) {
	const other = new Claims(store.config.dir, { timing: FAST, owner: { ...thisOwner(), token: 'the-other-process' } });
	const held = await other.acquire(key);
	const { job, sent } = steps(key);
	let settled = false;
	const result = obtainOwned(store, key, cacheMode, new AbortController().signal, job).finally(() => (settled = true));
	await until(() => store.claims.stats().folder === 0 && !settled, 'the job waits for the owner');
	if (ownerStores) await store.results.put(key, IMAGE, { mimeType: 'image/png', fileExtension: 'png', taskId: 'owner-task' });
	await held.release();
	return { value: await result, sent };
}

it.each<CacheMode>(['reuse', 'refresh', 'off'])('Cache %s: the owner stored its result, its journal record is lost: the waiter takes the stored result and sends nothing', async (cacheMode) => {
	const { value, sent } = await waitForOwner('job-key', cacheMode, true);
	expect(value).toBe('stored:owner-task');
	expect(sent).toHaveLength(0);
});

it('the owner left nothing (it died before sending): the waiter sends the job itself', async () => {
	const { value, sent } = await waitForOwner('job-key', 'reuse', false);
	expect(value).toBe('new job');
	expect(sent).toHaveLength(1);
});

it('Refresh, with a result stored before the job asked: not the owner\'s, so a new job is sent', async () => {
	await store.results.put('job-key', IMAGE, { mimeType: 'image/png', fileExtension: 'png', taskId: 'yesterday' });
	const { value, sent } = await waitForOwner('job-key', 'refresh', false);
	expect(value).toBe('new job');
	expect(sent).toHaveLength(1);
});
