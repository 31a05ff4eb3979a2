/**
 * One paid job, one owner, across real processes (each a forked process with its own pool, as two n8n
 * processes or two queue-mode workers), against the relay simulator on 127.0.0.1 with real store folders:
 * the same 30 prompts started at the same moment, or 30–150 ms apart, by two processes on one folder, or on two
 * folders sharing one redis-server, are each paid once and every slot of both gets its own right image; a
 * process killed while its jobs wait out a 429 back-off leaves none of them "maybe paid".
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import type { RelaySimulator } from '../../relay-sim';
import { fluxJobIdentity } from '../../src/fluxN8n/fluxJobKey';
import { openStore } from '../../src/store';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import { useRedisServer } from '../redis/useRedisServer';
import type { TestRedis } from '../support/redisServer';
import { until } from '../support/until';
import type { BatchCommand, SlotOutcome } from './fixtures/batchWorker';
import { flux3ImageRequest } from '../support/imageRequest';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 300, imageSize: { width: 8, height: 8 } }, (started) => (sim = started));
let redis: TestRedis;
useRedisServer((started) => (redis = started));

const FIXTURE = path.join(__dirname, 'fixtures', 'batchWorker.ts');
const folders: string[] = [];
let workers: ChildProcess[] = [];
afterEach(() => {
	for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
	workers = [];
});
afterAll(() => {
	for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'flux-two-processes-'));
	folders.push(dir);
	return dir;
}

interface Worker {
	child: ChildProcess;
	/** Resolves with the slots once the batch ran (after `go`). */
	done: Promise<SlotOutcome[]>;
	go(): void;
}

/** A worker process armed with its batch: `go()` starts it. */
async function worker(env: Record<string, string>, command: Omit<BatchCommand, 'baseUrl' | 'apiKey'>): Promise<Worker> {
	const child = fork(FIXTURE, [], { execArgv: ['-r', 'ts-node/register/transpile-only'], env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
	workers.push(child);
	const messages: Array<{ phase: string; slots?: SlotOutcome[]; error?: string }> = [];
	child.on('message', (m: { phase: string }) => messages.push(m));
	const phase = async (name: string) => {
		await until(() => messages.some((m) => m.phase === name || m.phase === 'failed') || child.exitCode !== null, `the worker is ${name}`, { limitMs: 240_000 });
		const found = messages.find((m) => m.phase === name);
		if (!found) throw new Error(`worker: ${messages.find((m) => m.phase === 'failed')?.error ?? `exited ${child.exitCode}`}`);
		return found;
	};
	await phase('ready');
	child.send({ run: { baseUrl: sim.url, apiKey: sim.apiKey, ...command } });
	await phase('armed');
	let started = false;
	const done = (async () => {
		await until(() => started, 'go');
		return (await phase('done')).slots ?? [];
	})();
	done.catch(() => undefined);
	return { child, done, go: () => ((started = true), child.send({ go: true })) };
}

/** The job key of a prompt as the worker makes it (occurrence 0, seed 1). */
function jobKeyOf(prompt: string): string {
	const credentials = { apiStyle: 'relay' as const, baseUrl: sim.url, apiKey: sim.apiKey };
	return fluxJobIdentity({}, credentials, flux3ImageRequest(prompt), 1).key;
}

const prompts = (name: string, n = 30) => Array.from({ length: n }, (_, i) => `${name} ${i}`);

function expectEverySlotRight(slots: SlotOutcome[], expected: string[]): void {
	expect(slots.map((s) => ({ slot: s.slot, status: s.status, prompt: s.prompt, errorKind: s.errorKind }))).toEqual(
		expected.map((prompt, i) => ({ slot: i + 1, status: 'success', prompt, errorKind: undefined })),
	);
}

function expectEachPaidOnce(expected: string[]): void {
	const accepted = (prompt: string) => sim.log.submits.filter((s) => s.prompt === prompt && s.status === 200).length;
	expect(expected.map((prompt) => [prompt, accepted(prompt)])).toEqual(expected.map((prompt) => [prompt, 1]));
	expect(sim.log.submits.filter((s) => s.status === 200)).toHaveLength(expected.length);
}

/** Two worker processes (`envs`) run the same batch, the second started `apartMs` after the first; both runs' slots, each checked right, each prompt paid once. */
async function runPair(envs: [Record<string, string>, Record<string, string>], batch: string[], apartMs = 0): Promise<[SlotOutcome[], SlotOutcome[]]> {
	const [a, b] = await Promise.all(envs.map((env, i) => worker(env, { prompts: batch, executionId: `exec-${'ab'[i]}` })));
	a.go();
	if (apartMs > 0) await new Promise((resolve) => setTimeout(resolve, apartMs)); // the second delivery of a webhook, this long after the first
	b.go();
	const [slotsA, slotsB] = await Promise.all([a.done, b.done]);
	expectEverySlotRight(slotsA, batch);
	expectEverySlotRight(slotsB, batch);
	expectEachPaidOnce(batch);
	return [slotsA, slotsB];
}

it('two processes on one store folder start the same 30 prompts at the same moment: 30 paid, both get every image right', async () => {
	const dir = folder();
	const batch = prompts('same moment');
	const [slotsA, slotsB] = await runPair([{ COMFLY_STORE_DIR: dir }, { COMFLY_STORE_DIR: dir }], batch);
	// Both have the same upstream image in every slot: one job per slot.
	expect(slotsB.map((s) => s.task)).toEqual(slotsA.map((s) => s.task));
});

it.each([30, 150])('started %i ms apart on one folder: 30 paid, none refused "maybe paid"', async (apartMs) => {
	const dir = folder();
	await runPair([{ COMFLY_STORE_DIR: dir }, { COMFLY_STORE_DIR: dir }], prompts(`apart ${apartMs}`), apartMs);
});

it('two processes with their own folders sharing one redis-server, the same 30 prompts at once: 30 paid, both right', async () => {
	const env = () => ({ COMFLY_STORE_DIR: folder(), COMFLY_REDIS_URL: redis.url });
	await runPair([env(), env()], prompts('two folders'));
});

it('killed (SIGKILL) while 25 jobs wait out 429s under an account capped at 5: the re-run refuses none "maybe paid", pays each once', async () => {
	const dir = folder();
	const batch = prompts('capped');
	sim.setLatency(4000);
	sim.setMaxActiveTasks(5);
	try {
		const first = await worker({ COMFLY_STORE_DIR: dir }, { prompts: batch, executionId: 'exec-killed' });
		first.go();
		// Killed once the journal shows five acknowledged and the other 25 waiting for their turn: refused with a 429
		// (journaled "not created"), or not sent yet (no record); none in the middle of a submit.
		const journal = openStore({ dir, maxBytes: 1 << 30, ttlMs: 86_400_000 }, { warn: () => undefined }).journal;
		const keys = batch.map((prompt) => jobKeyOf(prompt));
		const states = async () => await Promise.all(keys.map(async (key) => (await journal.read(key))?.state));
		const count = (list: Array<string | undefined>, state: string | undefined) => list.filter((s) => s === state).length;
		await until(async () => {
			const now = await states();
			return count(now, 'submitted') === 5 && count(now, 'failed') >= 20 && count(now, 'failed') + count(now, undefined) === 25;
		}, 'five acknowledged, 25 waiting for their turn', { limitMs: 60_000 });
		first.child.kill('SIGKILL');
		await new Promise((resolve) => first.child.once('exit', resolve));
		sim.setMaxActiveTasks(undefined);
		sim.setLatency(300);
		const again = await worker({ COMFLY_STORE_DIR: dir }, { prompts: batch, executionId: 'exec-rerun' });
		again.go();
		const slots = await again.done;
		expectEverySlotRight(slots, batch);
		expectEachPaidOnce(batch); // the five acknowledged ones re-attached, the 25 refused ones sent now
	} finally {
		sim.setMaxActiveTasks(undefined);
		sim.setLatency(300);
	}
});
