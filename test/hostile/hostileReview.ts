/**
 * The hostile review of "one paid job, one owner", as a hostile network and operator would attack it:
 * real processes (test/fluxN8n/fixtures/batchWorker.ts: each stands for one n8n), the relay simulator on 127.0.0.1
 * (random latencies, slow downloads, a reset submit, a moderated job), real store folders, a real redis-server.
 * Not a jest test (it takes minutes and reports counts, not pass/fail):
 *   npx ts-node --transpile-only test/hostile/hostileReview.ts [--rounds N] [--kill-only] [--only kill|together|corrupted|disk|limits]
 * Every round runs a batch of 30 jobs (identical rows included) and counts, from the simulator's request log and
 * every delivered PNG: jobs paid twice (accepted submits beyond the rows that asked for them), wrong or duplicate
 * images in any slot, slots refused "maybe paid" by whether their submit left (none reached the simulator; only
 * refused ones, whose refusal the killed process never read; one accepted or cut off), and the other failures.
 * The limits family runs 30 distinct rows under one account's Daily Job Limit or Daily Credit Limit and also counts
 * the rounds where the account was charged past it ("limits passed": tasks the simulator created, every one of which
 * it charges, accepted or cut off, beyond the job limit; the credits it charged beyond the credit limit).
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { closeSync, existsSync, fstatSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { startRelaySimulator, type RelaySimulator } from '../../relay-sim';
import { fluxJobIdentity } from '../../src/fluxN8n/fluxJobKey';
import type { SpendLimits } from '../../src/spend';
import { openStore } from '../../src/store';
import type { BatchCommand, SlotOutcome } from '../fluxN8n/fixtures/batchWorker';
import { startTestRedis, type TestRedis } from '../support/redisServer';
import { flux3ImageRequest } from '../support/imageRequest';

const FIXTURE = path.join(__dirname, '..', 'fluxN8n', 'fixtures', 'batchWorker.ts');
const ROUNDS = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 3;
/** `--kill-only`: only the kill -9 rounds (at every journal state and at random moments). */
const KILL_ONLY = process.argv.includes('--kill-only');
/** `--only kill|together|corrupted|disk|limits`: one family of scenarios (several flags allowed). */
const ONLY = process.argv.flatMap((arg, i) => (process.argv[i - 1] === '--only' ? [arg] : []));
const wanted = (family: string) => ONLY.length === 0 || ONLY.includes(family);
const say = (line: string) => process.stderr.write(`[hostile] ${line}\n`);

interface Tally {
	rounds: number;
	slots: number;
	paidTwice: number;
	wrongImages: number;
	duplicateImages: number;
	maybePaidNeverLeft: number;
	maybePaidRefusedUnseen: number;
	maybePaidSent: number;
	otherFailures: number;
	/** Limits family: rounds where the account was charged past its daily limit; the most and the least it was charged in one round. */
	limitsPassed: number;
	mostCharged: string;
	leastCharged: string;
	failureKinds: Record<string, number>;
}

const tallies = new Map<string, Tally>();
function tally(name: string): Tally {
	let t = tallies.get(name);
	if (!t) tallies.set(name, (t = { rounds: 0, slots: 0, paidTwice: 0, wrongImages: 0, duplicateImages: 0, maybePaidNeverLeft: 0, maybePaidRefusedUnseen: 0, maybePaidSent: 0, otherFailures: 0, limitsPassed: 0, mostCharged: '', leastCharged: '', failureKinds: {} }));
	return t;
}

let sim: RelaySimulator;

/** The simulator cleared for a round (log, tasks), its faults set again: a slow download, a reset submit, a moderated job. */
function resetSim(): void {
	sim.reset();
	sim.setFault('slowdl', { on: 'download', slowBytesPerSecond: 48 * 1024 });
	sim.setFault('flaky', { on: 'submit', reset: true });
	sim.setFault('moderated', { on: 'poll', finalStatus: 'Content Moderated' });
}
let redis: TestRedis;
const children = new Set<ChildProcess>();
const folders: string[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function folder(): string {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'flux-hostile-'));
	folders.push(dir);
	return dir;
}

/** 30 distinct rows (the limits family: every row a new paid job); a slow download, a reset submit, a moderated job, at both ends (within the limit from either end). */
function distinctBatch(round: string): string[] {
	const rows = Array.from({ length: 30 }, (_, i) => `${round} job ${i}`);
	for (const [i, fault] of [[2, 'slowdl'], [4, 'flaky'], [6, 'moderated'], [23, 'slowdl'], [25, 'flaky'], [27, 'moderated']] as const) rows[i] = `${round} ${fault} ${i}`;
	return rows;
}

/** 30 rows: 24 distinct prompts, two of them three times each (occurrences 0, 1, 2); a slow download, a reset submit, a moderated job. */
function batch(round: string): string[] {
	const rows = Array.from({ length: 24 }, (_, i) => `${round} job ${i}`);
	rows[20] = `${round} slowdl 20`;
	rows[21] = `${round} flaky 21`;
	rows[22] = `${round} moderated 22`;
	return [...rows, `${round} job 0`, `${round} job 0`, `${round} job 1`, `${round} job 1`, `${round} job 2`, `${round} job 2`];
}

interface Worker {
	child: ChildProcess;
	done: Promise<SlotOutcome[] | undefined>;
	go(): void;
}

async function worker(env: Record<string, string>, command: Omit<BatchCommand, 'baseUrl' | 'apiKey'>): Promise<Worker> {
	const child = fork(FIXTURE, [], { execArgv: ['-r', 'ts-node/register/transpile-only'], env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
	children.add(child);
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	const next = (phase: string) =>
		new Promise<{ slots?: SlotOutcome[] } | undefined>((resolve) => {
			const onMessage = (m: { phase: string; slots?: SlotOutcome[]; error?: string }) => {
				if (m.phase === 'failed') say(`worker failed: ${m.error}`);
				if (m.phase === phase || m.phase === 'failed') {
					child.off('message', onMessage);
					resolve(m);
				}
			};
			child.on('message', onMessage);
			void exited.then(() => resolve(undefined));
		});
	await next('ready');
	child.send({ run: { baseUrl: sim.url, apiKey: sim.apiKey, ...command } });
	await next('armed');
	const done = next('done').then((m) => m?.slots);
	return { child, done, go: () => child.send({ go: true }) };
}

async function kill(w: Worker): Promise<void> {
	if (w.child.exitCode !== null || w.child.signalCode !== null) return;
	const exited = new Promise((resolve) => w.child.once('exit', resolve));
	w.child.kill('SIGKILL');
	await exited;
}

/**
 * Counts a round's outcome: `runs` are the slot lists of every run that finished, all of the same rows. `rerun`:
 * the round ran the batch again after the first run ended (a moderated job, failed for good, is then sent again
 * as any re-run would: not counted as paid twice). `refusalsExpected`: a daily limit is set, so its refusals
 * (`budget_exceeded`) are the expected outcome of the rows beyond it, not failures.
 */
function count(name: string, rows: string[], runs: SlotOutcome[][], rerun = false, refusalsExpected = false): void {
	const t = tally(name);
	t.rounds += 1;
	const asked = new Map<string, number>();
	for (const row of rows) asked.set(row, (asked.get(row) ?? 0) + 1);
	for (const [prompt, times] of asked) {
		if (rerun && prompt.includes('moderated')) continue;
		const accepted = sim.log.submits.filter((s) => s.prompt === prompt && s.status === 200).length;
		t.paidTwice += Math.max(0, accepted - times);
		if (accepted > times && process.env.HOSTILE_DEBUG) say(`${name}: ${prompt} asked ${times}, paid ${accepted}`);
	}
	for (const slots of runs) {
		const tasks = new Map<string, number>();
		for (const slot of slots) {
			t.slots += 1;
			const expected = rows[slot.slot - 1];
			if (slot.status === 'success') {
				if (slot.prompt !== expected) t.wrongImages += 1;
				if (slot.task) tasks.set(slot.task, (tasks.get(slot.task) ?? 0) + 1);
				continue;
			}
			const kind = slot.errorKind ?? slot.status;
			t.failureKinds[kind] = (t.failureKinds[kind] ?? 0) + 1;
			if (slot.errorKind === 'maybe_submitted') {
				// Did a request of this prompt leave? One accepted, reset or left hanging may have created a task; one
				// refused (429 / 503) created none, but a process killed before it read the refusal cannot know that.
				const requests = sim.log.submits.filter((s) => s.prompt === expected);
				if (requests.some((s) => s.status === 200 || s.status <= 0)) t.maybePaidSent += 1;
				else if (requests.length > 0) t.maybePaidRefusedUnseen += 1;
				else t.maybePaidNeverLeft += 1;
			} else if (!(expected.includes('moderated') && kind === 'content_moderated') && !(refusalsExpected && kind === 'budget_exceeded')) {
				t.otherFailures += 1;
			}
		}
		for (const n of tasks.values()) if (n > 1) t.duplicateImages += n - 1;
	}
}

/** The journal states of a batch's keys, read from `dir` as another process would. */
async function states(dir: string, rows: string[], executionId: string): Promise<Array<string | undefined>> {
	const journal = openStore({ dir, maxBytes: 1 << 30, ttlMs: 86_400_000 }, { warn: () => undefined }).journal;
	const credentials = { apiStyle: 'relay' as const, baseUrl: sim.url, apiKey: sim.apiKey };
	const run = { getExecutionId: () => executionId };
	const keys = rows.map((prompt) => fluxJobIdentity(run, credentials, flux3ImageRequest(prompt), 1).key);
	return await Promise.all(keys.map(async (key) => (await journal.read(key))?.state));
}

/** kill -9 once the batch's journal shows `state` for some job (or at a random moment: 'random'), then a re-run in a new process. */
async function killAt(state: 'none' | 'submitting' | 'submitted' | 'stored' | 'random' | 'waiting-429', round: number): Promise<void> {
	const name = `kill -9 at ${state}`;
	const rows = batch(`kill-${state}-${round}`);
	const dir = folder();
	resetSim();
	sim.setMaxActiveTasks(state === 'waiting-429' ? 6 : undefined);
	const first = await worker({ COMFLY_STORE_DIR: dir }, { prompts: rows, executionId: `exec-${state}-${round}` });
	first.go();
	const deadline = Date.now() + 20_000;
	if (state === 'random') await sleep(Math.random() * 2500);
	else if (state === 'waiting-429') {
		while (Date.now() < deadline && !sim.log.submits.some((s) => s.status === 429)) await sleep(2);
		await sleep(300);
	} else if (state !== 'none') {
		while (Date.now() < deadline && !(await states(dir, rows, `exec-${state}-${round}`)).includes(state)) await sleep(1);
	}
	await kill(first);
	sim.setMaxActiveTasks(undefined);
	const again = await worker({ COMFLY_STORE_DIR: dir }, { prompts: rows, executionId: `exec-rerun-${round}` });
	again.go();
	const slots = await again.done;
	count(name, rows, slots ? [slots] : [], true);
}

/** `n` processes start the same batch 0–150 ms apart: one folder, or each its own folder on one Redis (`redisEvent`: what happens to Redis mid-batch). */
async function together(n: number, round: number, shared: 'folder' | 'redis', redisEvent: 'none' | 'freeze' | 'kill' = 'none'): Promise<void> {
	const name = `${n} processes, ${shared === 'folder' ? 'one folder' : 'own folders + one Redis'}${redisEvent === 'none' ? '' : `, Redis ${redisEvent === 'freeze' ? 'frozen (SIGSTOP) mid-batch' : 'killed and restarted empty mid-batch'}`}`;
	const rows = batch(`together-${n}-${shared}-${redisEvent}-${round}`);
	resetSim();
	const sharedDir = folder();
	const env = (): Record<string, string> => (shared === 'folder' ? { COMFLY_STORE_DIR: sharedDir } : { COMFLY_STORE_DIR: folder(), COMFLY_REDIS_URL: redis.url });
	const workers = await Promise.all(Array.from({ length: n }, (_, i) => worker(env(), { prompts: rows, executionId: `exec-${round}-${i}` })));
	for (const w of workers) {
		w.go();
		await sleep(Math.random() * 150);
	}
	if (redisEvent === 'freeze') {
		await sleep(300 + Math.random() * 1000);
		redis.freeze();
		await sleep(4000);
		redis.thaw();
	} else if (redisEvent === 'kill') {
		await sleep(300 + Math.random() * 1000);
		await redis.kill();
		await sleep(1000);
		await redis.restart();
	}
	const runs = (await Promise.all(workers.map((w) => w.done))).filter((slots): slots is SlotOutcome[] => slots !== undefined);
	count(name, rows, runs);
}

/** A slot in one letter (HOSTILE_DEBUG): s paid here, c from the store, B refused by a limit, M maybe paid, X moderated, ? other. */
const slotLetter = (slot: SlotOutcome) =>
	slot.status === 'success' ? (slot.cached ? 'c' : 's') : ({ budget_exceeded: 'B', maybe_submitted: 'M', content_moderated: 'X' } as Record<string, string>)[slot.errorKind ?? ''] ?? '?';

/** Where the two processes of a limits scenario keep their ledger: one folder (with or without Redis), or own folders on one Redis. */
type LimitsPlace = 'one folder' | 'one folder + Redis' | 'own folders + one Redis';

/**
 * One account under a daily limit far below the batch's 30 distinct rows, two processes (3 jobs at a time each, so
 * that the reservations spread over seconds and an event lands among them) started at one moment, the second on the
 * rows in reverse order (so that each reserves for jobs of its own, not only for the same claimed ones). `event`: one
 * process killed -9 once jobs are being paid, the survivor run to its end, then both run again on the same folders;
 * Redis frozen (SIGSTOP) for 4 s, or killed and restarted empty, once jobs are being paid.
 */
async function limitsRound(place: LimitsPlace, limits: SpendLimits, event: 'none' | 'kill' | 'freeze' | 'restart', round: number): Promise<void> {
	const limitText = limits.jobs !== undefined ? `Daily Job Limit ${limits.jobs}` : `Daily Credit Limit ${limits.credits}`;
	const eventText = { none: '', kill: ', one killed -9 mid-batch, then both run again', freeze: ', Redis frozen (SIGSTOP) mid-batch', restart: ', Redis restarted empty mid-batch' }[event];
	const name = `limits: 2 processes, ${place}, ${limitText}${eventText}`;
	const tag = `${place}-${limitText}-${event}`.replace(/[^a-z0-9]+/gi, '-');
	const rows = distinctBatch(`limits-${tag}-${round}`);
	// A new day for the account: nothing it spent in an earlier scenario counts (its folders are new as well).
	execFileSync('redis-cli', ['-u', redis.url, 'FLUSHALL'], { stdio: 'ignore' });
	resetSim();
	const sharedDir = folder();
	const envs = [0, 1].map((): Record<string, string> => ({
		COMFLY_STORE_DIR: place === 'own folders + one Redis' ? folder() : sharedDir,
		...(place === 'one folder' ? {} : { COMFLY_REDIS_URL: redis.url }),
		COMFLY_IMAGE_CONCURRENCY: '3',
		COMFLY_IMAGE_PENDING: '64',
	}));
	const reversed = [...rows].reverse();
	const start = (run: string) => Promise.all(envs.map((env, i) => worker(env, { prompts: i === 0 ? rows : reversed, executionId: `exec-limits-${tag}-${round}-${run}-${i}`, limits })));
	// The second process's slots as slots of `rows`.
	const inOrder = (slots: SlotOutcome[], i: number) => (i === 0 ? slots : slots.map((slot) => ({ ...slot, slot: rows.length + 1 - slot.slot })).reverse());
	const finished = async (ws: Worker[]) => (await Promise.all(ws.map(async (w, i) => ((slots) => slots && inOrder(slots, i))(await w.done)))).filter((slots): slots is SlotOutcome[] => slots !== undefined);
	const workers = await start('first');
	for (const w of workers) w.go();
	if (event !== 'none') {
		// Once the first jobs are paid, and a random while later: among the reservations.
		const deadline = Date.now() + 20_000;
		while (Date.now() < deadline && !sim.log.submits.some((s) => s.status === 200)) await sleep(2);
		await sleep(Math.random() * 800);
		if (event === 'kill') await kill(workers[0]);
		else if (event === 'freeze') {
			redis.freeze();
			await sleep(4000);
			redis.thaw();
		} else {
			await redis.kill();
			await sleep(1000);
			await redis.restart();
		}
	}
	const runs = await finished(workers);
	const ended = [...workers];
	if (event === 'kill') {
		const again = await start('again');
		for (const w of again) w.go();
		runs.push(...(await finished(again)));
		ended.push(...again);
	}
	// The round's processes go: alive, they would merge this round's spend into the next round's Redis when it
	// restarts (as a real machine rightly does within the 24 hours), and the next round is a new day for the account.
	for (const w of ended) await kill(w);
	count(name, rows, runs, event === 'kill', true);
	// Every task the simulator created is charged (accepted, or created by the reset submit): the account's spend.
	const paid = sim.log.tasks.size;
	const credits = sim.log.charged;
	const accepted = sim.log.submits.filter((s) => s.status === 200).length;
	const passed = (limits.jobs !== undefined && paid > limits.jobs) || (limits.credits !== undefined && credits > limits.credits + 1e-9);
	const t = tally(name);
	if (passed) {
		t.limitsPassed += 1;
		say(`${name}: LIMIT PASSED in round ${round}: ${paid} jobs paid (${accepted} accepted), ${credits} credits`);
	}
	const charged = `${paid} jobs / ${credits} cr`;
	if (!t.mostCharged || paid > Number(t.mostCharged.split(' ')[0])) t.mostCharged = charged;
	if (!t.leastCharged || paid < Number(t.leastCharged.split(' ')[0])) t.leastCharged = charged;
	if (process.env.HOSTILE_DEBUG) {
		say(`${name}: ${charged} (${accepted} accepted); slots ${runs.map((r) => r.map(slotLetter).join('')).join(' | ')}`);
		for (const error of new Set(runs.flat().flatMap((slot) => (slot.error ? [slot.error.replace(/\d+/g, '#')] : [])))) say(`  refused: ${error}`);
	}
}

/** Two processes on one folder that is read-only, or on a disk with no room left. */
async function badDisk(kind: 'read-only' | 'full', round: number): Promise<void> {
	const name = `2 processes, one folder on a ${kind} disk`;
	const rows = batch(`disk-${kind}-${round}`);
	const mount = mkdtempSync(path.join(os.tmpdir(), 'flux-hostile-tmpfs-'));
	execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2048k', 'tmpfs', mount]);
	try {
		if (kind === 'full') writeFileSync(path.join(mount, 'filler'), Buffer.alloc(2048 * 1024 - 16 * 1024));
		else execFileSync('mount', ['-o', 'remount,ro', mount]);
		resetSim();
		const dir = path.join(mount, 'store');
		const workers = await Promise.all([0, 1].map((i) => worker({ COMFLY_STORE_DIR: dir }, { prompts: rows, executionId: `exec-disk-${i}` })));
		for (const w of workers) w.go();
		const runs = (await Promise.all(workers.map((w) => w.done))).filter((slots): slots is SlotOutcome[] => slots !== undefined);
		count(name, rows, runs);
	} finally {
		execFileSync('umount', ['-l', mount]);
		rmSync(mount, { recursive: true, force: true });
	}
}

/** Two processes on one folder while journal logs and claim files are overwritten with garbage, then a re-run. */
async function corrupted(round: number): Promise<void> {
	const name = '2 processes, journal and claim files corrupted mid-batch, then a re-run';
	const rows = batch(`corrupt-${round}`);
	const dir = folder();
	resetSim();
	const workers = await Promise.all([0, 1].map((i) => worker({ COMFLY_STORE_DIR: dir }, { prompts: rows, executionId: `exec-corrupt-${i}` })));
	for (const w of workers) w.go();
	for (let i = 0; i < 6; i++) {
		await sleep(250);
		for (const sub of ['journal', 'claims']) {
			const at = path.join(dir, sub);
			// Not there yet on a loaded machine (the workers make it with their first claim): nothing to corrupt this time.
			for (const name of (existsSync(at) ? readdirSync(at, { withFileTypes: true }) : []).filter((e) => e.isFile()).map((e) => e.name)) {
				if (Math.random() > 0.3) continue;
				const file = path.join(at, name);
				try {
					// One byte changed in place (the file is not rewritten: appends made meanwhile stay).
					const fd = openSync(file, 'r+');
					try {
						const size = fstatSync(fd).size;
						if (size === 0) continue;
						const at = Math.floor(Math.random() * size);
						const byte = Buffer.alloc(1);
						readSync(fd, byte, 0, 1, at);
						byte[0] ^= 0x5a;
						writeSync(fd, byte, 0, 1, at);
					} finally {
						closeSync(fd);
					}
				} catch {
					// removed meanwhile
				}
			}
		}
	}
	const runs = (await Promise.all(workers.map((w) => w.done))).filter((slots): slots is SlotOutcome[] => slots !== undefined);
	if (process.env.HOSTILE_DEBUG) say(`corrupted: ${sim.log.submits.filter((s) => s.status === 200).length} accepted before the re-run; runs: ${runs.map((r) => r.map((s) => s.status[0]).join('')).join(' | ')}`);
	const again = await worker({ COMFLY_STORE_DIR: dir }, { prompts: rows, executionId: 'exec-corrupt-rerun' });
	again.go();
	const rerun = await again.done;
	if (process.env.HOSTILE_DEBUG) say(`corrupted re-run: ${rerun?.map((s) => (s.cached ? 'c' : s.status[0])).join('')}; ${sim.log.submits.filter((s) => s.status === 200).length} accepted in all`);
	count(name, rows, rerun ? [...runs, rerun] : runs, true);
}

async function main(): Promise<void> {
	const latency = (prompt: string) => 300 + (Math.abs([...prompt].reduce((h, c) => (h * 31 + c.charCodeAt(0)) | 0, 7)) % 2200);
	sim = await startRelaySimulator({ latencyMs: latency, imageBytes: 64 * 1024, imageSize: { width: 8, height: 8 } });
	redis = await startTestRedis();
	try {
		for (let round = 0; round < ROUNDS; round++) {
			if (wanted('kill')) for (const state of ['none', 'submitting', 'submitted', 'stored', 'waiting-429', 'random'] as const) await killAt(state, round);
			if (KILL_ONLY) {
				for (let extra = 0; extra < 3; extra++) await killAt('random', round * 10 + extra + 100);
				say(`round ${round + 1} of ${ROUNDS} done`);
				continue;
			}
			if (wanted('together')) {
				await together(2, round, 'folder');
				await together(3, round, 'folder');
				await together(2, round, 'redis');
				await together(3, round, 'redis');
				await together(2, round, 'redis', 'freeze');
				await together(2, round, 'redis', 'kill');
			}
			if (wanted('corrupted')) await corrupted(round);
			if (wanted('limits')) {
				await limitsRound('one folder', { jobs: 8 }, 'none', round);
				await limitsRound('one folder', { credits: 40 }, 'none', round);
				await limitsRound('own folders + one Redis', { jobs: 8 }, 'none', round);
				await limitsRound('one folder', { jobs: 8 }, 'kill', round);
				await limitsRound('own folders + one Redis', { jobs: 8 }, 'kill', round);
				await limitsRound('one folder + Redis', { jobs: 8 }, 'freeze', round);
				await limitsRound('one folder + Redis', { jobs: 8 }, 'restart', round);
			}
			if (round === 0 && wanted('disk')) {
				await badDisk('read-only', round);
				await badDisk('full', round);
			}
			say(`round ${round + 1} of ${ROUNDS} done`);
		}
	} finally {
		for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
		await sim.close();
		if (redis.frozen()) redis.thaw();
		await redis.stop();
		for (const dir of folders) rmSync(dir, { recursive: true, force: true });
	}
	const rows = [...tallies].map(([name, t]) => ({ scenario: name, ...t, failureKinds: JSON.stringify(t.failureKinds) }));
	console.table(rows);
	console.log(JSON.stringify([...tallies], null, 1));
}

void main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
