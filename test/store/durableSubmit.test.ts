/**
 * The write-ahead record is durable before the money leaves (src/store/journalAhead.ts): a job's `submitting` line
 * is synced before any byte of its submit's body reaches the upstream (a TCP proxy in front of the relay simulator
 * counts the POST body bytes while the test holds the sync), and concurrent submits share their syncs (group
 * commit): thirty at once cost a handful of syncs, not thirty.
 */
import * as net from 'node:net';
import * as path from 'node:path';

import type { RelaySimulator } from '../../relay-sim';
import { obtainFluxImage } from '../../src/fluxN8n/imageJobs';
import { openStore, type Store } from '../../src/store';
import { diskSync, type DiskSync } from '../../src/coordination/atomicFile';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { jobContext, preparedImageJob } from '../support/preparedJobs';
import { until } from '../support/until';
import { useTempDir } from './tempStore';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 0 }, (started) => (sim = started));
const temp = useTempDir();

/** A TCP proxy to the simulator that counts the bytes of POST bodies (what follows a POST's headers). */
async function bodyCountingProxy(target: string) {
	const { hostname, port } = new URL(target);
	let bodyBytes = 0;
	const server = net.createServer((client) => {
		const upstream = net.connect(Number(port), hostname);
		let head = Buffer.alloc(0);
		let post: boolean | undefined;
		client.on('data', (chunk: Buffer) => {
			if (post !== undefined) {
				if (post) bodyBytes += chunk.length;
				return;
			}
			head = Buffer.concat([head, chunk]);
			const end = head.indexOf('\r\n\r\n');
			if (end < 0) return;
			post = head.subarray(0, 5).toString() === 'POST ';
			if (post) bodyBytes += head.length - end - 4;
		});
		client.pipe(upstream).pipe(client);
		client.on('error', () => upstream.destroy());
		upstream.on('error', () => client.destroy());
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const address = server.address() as net.AddressInfo;
	return { url: `http://127.0.0.1:${address.port}`, bodyBytes: () => bodyBytes, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** A sync the test can hold: while held, every file sync waits; `files` counts the file syncs made. */
function heldSync() {
	let release: () => void = () => undefined;
	let gate: Promise<void> | undefined;
	const state = { files: 0, waiting: 0 };
	const sync: DiskSync = async (target, what) => {
		if (what === 'file') state.files += 1;
		if (gate) {
			state.waiting += 1;
			await gate;
		}
		await diskSync(target, what);
	};
	return {
		sync,
		state,
		hold: () => (gate = new Promise<void>((resolve) => (release = resolve))),
		release: () => {
			gate = undefined;
			release();
		},
	};
}

const storeWith = (sync: DiskSync): Store => openStore({ dir: path.join(temp.dir, 'store'), maxBytes: 64 * 1024 ** 2, ttlMs: 86_400_000 }, { warn: () => undefined, journalSync: sync });

it('no byte of the submit body reaches the upstream before the sync covering its `submitting` line has completed', async () => {
	const proxy = await bodyCountingProxy(sim.url);
	try {
		const held = heldSync();
		const store = storeWith(held.sync);
		const job = preparedImageJob(sim, 'a durable submit');
		job.credentials = { ...job.credentials, baseUrl: proxy.url };
		held.hold();
		const result = obtainFluxImage(job, jobContext('job-durable'), store).catch((error: unknown) => error);
		await until(() => held.state.waiting > 0, 'the submitting line waits for its sync');
		expect(await store.journal.read(job.identity.key)).toMatchObject({ state: 'submitting' }); // written, not yet synced
		expect(proxy.bodyBytes()).toBe(0);
		expect(sim.log.submits).toHaveLength(0);
		held.release();
		await until(() => sim.log.submits.length === 1, 'the submit left once its line was on disk');
		expect(proxy.bodyBytes()).toBeGreaterThan(0);
		await result;
	} finally {
		await proxy.close();
	}
});

it('group commit: thirty concurrent submits share their syncs', async () => {
	const held = heldSync();
	const store = storeWith(held.sync);
	await store.journal.submitting('warm-up', { jobId: 'warm-up', apiStyle: 'relay', baseUrl: sim.url, model: 'm', apiKeyHash: 'h' }); // the files exist
	const before = held.state.files;
	const jobs = Array.from({ length: 30 }, (_, i) => obtainFluxImage(preparedImageJob(sim, `group commit ${i}`), jobContext(`job-group-${i}`), store));
	const results = await Promise.all(jobs);
	expect(results.every((r) => r.outcome === 'success')).toBe(true);
	expect(sim.log.submits).toHaveLength(30);
	expect(held.state.files - before).toBeGreaterThan(0);
	expect(held.state.files - before).toBeLessThanOrEqual(6);
});
