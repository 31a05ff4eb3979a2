/**
 * A claimant that waited for another owner takes what that owner stored meanwhile, even when the journal record
 * that should say so is lost or damaged (src/fluxN8n/ownedJob.ts): it never pays again for the one job both asked
 * for. A result stored before it asked is not "the owner's": under Refresh it still sends a new job. A job whose claim
 * was taken over while it stalled sends nothing and delivers the new owner's image (or its failure, clearly).
 */
import * as path from 'node:path';

import { obtainOwned, type OwnedJobSteps } from '../../src/fluxN8n/ownedJob';
import { Claims, openStore, type CacheMode, type Store } from '../../src/store';
import { thisOwner } from '../../src/coordination/ownerLiveness';
import { makeTempDir } from '../store/tempStore';
import { until } from '../support/until';
import type { RelaySimulator } from '../../relay-sim';
import { generateImage } from '../../src/flux';
import { SubmitJournal } from '../../src/fluxN8n/submitJournal';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { requestFor } from '../flux/helpers';

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

describe('a job whose claim was taken over never sends: it delivers the new owner\'s outcome', () => {
	let sim: RelaySimulator;
	useRelaySimulator({ latencyMs: 0 }, (started) => (sim = started));
	const LAPSE = { ...FAST, fileLapseMs: 400 };

	/** One process's view of the shared folder: its own store and its own claims (an owner on a host of its own, on its own clock). */
	function process(name: string, now: () => number): Store {
		const own = openStore({ dir: path.join(temp.dir, 'store'), maxBytes: 64 * 1024 ** 2, ttlMs: 86_400_000 }, { warn: () => undefined, claimTiming: LAPSE });
		return { ...own, claims: new Claims(own.config.dir, { timing: LAPSE, now, owner: { ...thisOwner(), token: name, host: `${name}-host|boot|pid:[1]` } }) };
	}

	/** Real sends through the simulator, journaled as the product journals them (SubmitJournal: the claim is checked before the body leaves). */
	function sending(store: Store, key: string, prompt: string, gate?: Promise<void>, reached?: () => void) {
		const sent: string[] = [];
		const job: OwnedJobSteps<string> = {
			readStored: async (storedSince = 0) => {
				const hit = await store.results.check(key);
				return hit && hit.storedAt >= storedSince ? `stored:${hit.taskId}` : undefined;
			},
			reattach: async () => undefined,
			sendNew: async () => {
				reached?.();
				await gate; // e.g. this process stalls (its worker queue, a frozen event loop) past its claim's lapse
				const journal = new SubmitJournal(store, key, { jobId: `${prompt}-job`, apiStyle: 'relay', baseUrl: sim.url, model: 'flux-3', apiKeyHash: 'h' }, [sim.apiKey]);
				try {
					const image = await generateImage({ apiStyle: 'relay', baseUrl: sim.url, apiKey: sim.apiKey }, requestFor(prompt), { steps: [journal] });
					await journal.settled();
					await store.results.put(key, image.buffer, { mimeType: image.mimeType, fileExtension: image.fileExtension, taskId: image.taskId });
					await store.journal.stored(key);
					sent.push(image.taskId);
					return `sent:${image.taskId}`;
				} catch (error) {
					await journal.failed(error);
					throw error;
				}
			},
		};
		return { job, sent };
	}

	it('two owners on one store folder: the one silent past the lapse sends 0 submits and delivers the new owner\'s image', async () => {
		const key = 'lost-claim-key';
		let releaseA: () => void = () => undefined;
		let reachedA = false;
		const storeA = process('a', Date.now);
		const a = sending(storeA, key, 'lost claim', new Promise<void>((resolve) => (releaseA = resolve)), () => (reachedA = true));
		const resultA = obtainOwned(storeA, key, 'reuse', new AbortController().signal, a.job);
		await until(() => reachedA, 'A holds the claim and is about to send');

		const storeB = process('b', () => Date.now() + 60_000); // B's clock: A's claim was last touched a minute ago
		const b = sending(storeB, key, 'lost claim');
		expect(await obtainOwned(storeB, key, 'reuse', new AbortController().signal, b.job)).toMatch(/^sent:/);
		expect(sim.log.submits).toHaveLength(1);

		releaseA();
		expect(await resultA).toBe(`stored:${b.sent[0]}`);
		expect(a.sent).toHaveLength(0);
		expect(sim.log.submits).toHaveLength(1);
		expect(storeA.claims.stats().folder).toBe(0);
	});

	it('the new owner failed: the job that lost its claim fails clearly with that failure, and sends nothing', async () => {
		const key = 'lost-claim-failed';
		let releaseA: () => void = () => undefined;
		let reachedA = false;
		const storeA = process('a', Date.now);
		const a = sending(storeA, key, 'lost then failed', new Promise<void>((resolve) => (releaseA = resolve)), () => (reachedA = true));
		const resultA = obtainOwned(storeA, key, 'reuse', new AbortController().signal, a.job).catch((error: unknown) => error);
		await until(() => reachedA, 'A holds the claim and is about to send');
		sim.setFault('lost then failed', { on: 'submit', status: 429, retryAfter: 0 }); // never created: journaled failed
		const storeB = process('b', () => Date.now() + 60_000);
		const b = sending(storeB, key, 'lost then failed');
		await expect(obtainOwned(storeB, key, 'reuse', new AbortController().signal, b.job)).rejects.toMatchObject({ kind: 'rate_limited' });
		expect(await storeB.journal.read(key)).toMatchObject({ state: 'failed', errorKind: 'rate_limited' });
		const submitsByB = sim.log.submits.length;
		releaseA();
		const failure = await resultA;
		expect(failure).toMatchObject({ kind: 'rate_limited', message: expect.stringContaining('Another n8n execution took this job over') });
		expect(sim.log.submits).toHaveLength(submitsByB);
	});
});
