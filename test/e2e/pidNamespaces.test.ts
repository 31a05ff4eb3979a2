/**
 * Two containers on one host, in a REAL n8n (this package installed by npm pack): each `n8n execute` runs in a PID
 * namespace of its own (`unshare --pid --fork --mount-proc`; needs root, as in CI), both on ONE store folder and no
 * Redis, against the relay simulator on 127.0.0.1 in BFL style (4 credits a job, told in the submit answer; nobody
 * knows the price before the first answer). One namespace starts a few short-lived processes before n8n, so its
 * n8n's pid is no process in the other (a pid from another namespace says nothing there):
 * (1) the same 30-row batch started in both at one moment, under a Daily Credit Limit of 40: 10 bought in all (each
 *     prompt paid once); the first to buy two is killed -9 mid-batch, the other finishes; the killed one run again
 *     pays nothing and delivers what the other delivered;
 * (2) an unpriced job in namespace A (its submit never answered) holds B's unpriced jobs back: none of B's is sent
 *     while A's is out (B's jobs end at their timeout, unsent).
 * Needs `npm run build` first (npm run test:e2e does it).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { ensureN8nInstalled, getFreePort, importCredentials, importWorkflows, n8nCommandLine, nodeItems, parseRunOutput, type ExecuteResult, type N8nHome, type WorkflowJson } from '../../scripts/n8n';
import type { RelaySimulator } from '../../relay-sim';
import { until } from '../support/until';
import { startSimulatedN8n, stopSimulatedN8n, type SimulatedN8n } from './support/simulatedN8n';

const API_KEY = `sim-e2e-${randomBytes(16).toString('hex')}`;
const log = (line: string) => process.stderr.write(`[e2e pid namespaces] ${line}\n`);

let e2e: SimulatedN8n | undefined;
let sim: RelaySimulator;
let home: N8nHome;
let limited: { id: string; name: string };
const folders: string[] = [];
const running = new Set<ChildProcess>();

beforeAll(async () => {
	try {
		execFileSync('unshare', ['--pid', '--fork', '--mount-proc', 'true'], { stdio: 'pipe' });
	} catch (error) {
		throw new Error(`a PID namespace of its own needs root (unshare): ${String((error as { stderr?: Buffer }).stderr ?? error)}`);
	}
	await ensureN8nInstalled({ log });
	e2e = await startSimulatedN8n({ name: 'pidns', apiKey: API_KEY, sim: { latencyMs: 100, imageSize: { width: 8, height: 8 } }, credentialName: 'FLUX pidns e2e', log });
	({ sim, home } = e2e);
	const [saved] = await importCredentials(home, [{ name: 'FLUX 40 a day', type: 'fluxApi', data: { apiStyle: 'bfl', baseUrl: sim.url, apiKey: API_KEY, dailyCreditLimit: 40 } }]);
	limited = { id: String(saved.id), name: saved.name };
}, 20 * 60_000);

afterAll(async () => {
	for (const child of running) killNamespace(child);
	await stopSimulatedN8n(e2e);
	for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

function storeFolder(): string {
	const dir = mkdtempSync(path.join(tmpdir(), 'flux-e2e-pidns-store-'));
	folders.push(dir);
	return dir;
}

/** SIGKILL to the namespace's whole process group (unshare, the namespace's init, n8n and its task runner). */
function killNamespace(child: ChildProcess): void {
	try {
		process.kill(-child.pid!, 'SIGKILL');
	} catch {
		/* already gone */
	}
}

/**
 * `n8n execute` of a workflow in a new PID namespace; `burn` short-lived processes run first, so n8n's pid there
 * differs from another namespace's. n8n's watchdog is off (its parent is not visible from inside): the run is ended
 * through its process group instead.
 */
function executeInNamespace(id: string, env: Record<string, string>, burn = 0): { child: Promise<ChildProcess>; result: Promise<ExecuteResult> } {
	let started!: (child: ChildProcess) => void;
	const child = new Promise<ChildProcess>((resolve) => (started = resolve));
	const result = (async () => {
		const line = n8nCommandLine(home, ['execute', `--id=${id}`, '--rawOutput']);
		const script = `i=0; while [ $i -lt ${burn} ]; do /bin/true; i=$((i+1)); done; "$@"; exit $?`;
		const fullEnv = { N8N_RUNNERS_BROKER_PORT: String(await getFreePort()), ...home.env, ...env, REAL_N8N_PARENT_PID: '0' };
		const proc = spawn('unshare', ['--pid', '--fork', '--mount-proc', '--kill-child', 'sh', '-c', script, 'sh', line.command, ...line.args], {
			cwd: home.dir,
			env: fullEnv,
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		running.add(proc);
		started(proc);
		const out = { stdout: '', stderr: '' };
		proc.stdout.on('data', (chunk: Buffer) => (out.stdout += chunk.toString('utf8')));
		proc.stderr.on('data', (chunk: Buffer) => (out.stderr += chunk.toString('utf8')));
		const startedAt = Date.now();
		const limit = setTimeout(() => killNamespace(proc), 180_000);
		const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => proc.on('close', (code, sig) => resolve([code, sig])));
		clearTimeout(limit);
		running.delete(proc);
		killNamespace(proc);
		const run = parseRunOutput(out.stdout) ?? parseRunOutput(`${out.stdout}\n${out.stderr}`);
		const error = run?.data.resultData.error ?? null;
		return { ...out, exitCode, signal, timedOut: false, durationMs: Date.now() - startedAt, run, runData: run?.data.resultData.runData ?? null, error, ok: exitCode === 0 && !!run && !error };
	})();
	return { child, result };
}

/** Start → Rows (a Code node: one item per prompt) → Submit (the limited credential) → Collect (Placeholder). */
function batchWorkflow(name: string, prompts: string[], options: Record<string, unknown> = {}): WorkflowJson {
	const node = (nodeName: string, type: string, typeVersion: number, parameters: Record<string, unknown>, x: number, extra: Record<string, unknown> = {}) => ({
		id: nodeName.toLowerCase(), name: nodeName, type, typeVersion, position: [x, 0], parameters, ...extra,
	});
	const main = (to: string) => ({ main: [[{ node: to, type: 'main', index: 0 }]] });
	return {
		name,
		active: false,
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', 1, {}, 0),
			node('Rows', 'n8n-nodes-base.code', 2, { jsCode: `return ${JSON.stringify(prompts)}.map((prompt) => ({ json: { prompt } }));` }, 200),
			node('Submit', home.nodeType('fluxConcurrentSubmit'), 1, { prompt: '={{ $json.prompt }}', options }, 400, { credentials: { fluxApi: limited } }),
			node('Collect', home.nodeType('concurrentCollect'), 1, { numberInputs: 1, failureMode: 'placeholder' }, 600),
		],
		connections: { Start: main('Rows'), Rows: main('Submit'), Submit: main('Collect') },
	};
}

function expectOk(result: ExecuteResult): void {
	if (!result.ok) throw new Error(`n8n run failed (exit ${result.exitCode}): ${(result.stdout + result.stderr).split('\n').slice(-30).join('\n')}`);
}

const slotsOf = (result: ExecuteResult) => nodeItems(result, 'Collect', 0, 0).map((item) => item.json);
const accepted = (prompt: string) => sim.log.submits.filter((submit) => submit.prompt === prompt && submit.status !== 429).length;

interface LedgerEntryOnDisk {
	credits: number | null;
	at: number;
	blocksUntil?: number;
	owner?: { host: string; pid: number };
	pid?: number;
}

/** Every entry of the store folder's spend ledgers (one file per account). */
function ledgerEntries(store: string): LedgerEntryOnDisk[] {
	const dir = path.join(store, 'spend');
	if (!existsSync(dir)) return [];
	return readdirSync(dir)
		.filter((name) => name.endsWith('.json'))
		.flatMap((name) => (JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as { entries: LedgerEntryOnDisk[] }).entries);
}
const ownerOf = (entry: LedgerEntryOnDisk) => `pid ${entry.owner?.pid ?? entry.pid} in ${entry.owner?.host.split('|')[2] ?? 'an unrecorded namespace'}`;

it('(1) the same batch in both at one moment under a 40-credit limit: 10 bought in all, each once; the first to buy two killed -9 mid-batch and run again pays nothing twice and delivers what the other delivered', async () => {
	const prompts = Array.from({ length: 30 }, (_, i) => `both ${i + 1}`);
	const [a, b] = await importWorkflows(home, [batchWorkflow('pidns both a', prompts), batchWorkflow('pidns both b', prompts)]);
	sim.reset();
	// One job at a time in each, 1 s jobs: the ten bought jobs take both processes' runs, so they overlap.
	sim.setLatency(1000);
	const store = storeFolder();
	const env = { COMFLY_STORE_DIR: store, COMFLY_IMAGE_CONCURRENCY: '1' };
	const runs = [{ id: a, run: executeInNamespace(a, env) }, { id: b, run: executeInNamespace(b, env, 40) }];
	// The one that bought two jobs first is killed -9 with its batch half done; the other goes on.
	const children = await Promise.all(runs.map(({ run }) => run.child));
	// unshare's children's PID namespace (read again each time: it is the parent's until unshare made the new one;
	// once unshare has ended, the last one read).
	const namespaces = new Map<ChildProcess, string>();
	const boughtBy = (child: ChildProcess) => {
		try {
			namespaces.set(child, readlinkSync(`/proc/${child.pid}/ns/pid_for_children`));
		} catch {
			// ended: its batch is over (or it failed, which its result shows)
		}
		const namespace = namespaces.get(child);
		return ledgerEntries(store).filter((entry) => namespace !== undefined && entry.owner?.host.endsWith(`|${namespace}`)).length;
	};
	// Killed once every reservation so far has been sent: a reservation its dead owner never sent would rightly stay
	// held (its owner is in another PID namespace: judged by age, up to the job's timeout), and the two would then buy
	// one job fewer than the limit in this run. With one job at a time per process, its next reservation is a second away.
	const allSent = () => sim.log.submits.filter((submit) => submit.status === 200).length >= ledgerEntries(store).length;
	await until(() => children.some((child) => boughtBy(child) >= 2) && allSent(), 'one of them bought and sent two jobs', { limitMs: 150_000, everyMs: 20 });
	const victim = children.findIndex((child) => boughtBy(child) >= 2);
	const boughtBeforeKill = sim.log.submits.length;
	killNamespace(await runs[victim].run.child);
	await runs[victim].run.result;
	const survivor = await runs[1 - victim].run.result;
	expectOk(survivor);
	const again = await executeInNamespace(runs[victim].id, env).result;
	sim.setLatency(100);
	expectOk(again);
	const submits = sim.log.submits.map((submit) => submit.prompt);
	const statuses = (run: ExecuteResult) => slotsOf(run).map((slot) => (slot.status === 'success' ? String(slot.taskId) : String(slot.errorKind)));
	const bought = (run: ExecuteResult) => statuses(run).filter((status) => !/^[a-z_]+$/.test(status));
	log(`(1) ${submits.length} submits at the simulator (${new Set(submits).size} prompts), ${sim.log.charged} credits charged under a limit of 40; ${'AB'[victim]} killed -9 when ${boughtBeforeKill} had been sent, 2 of them its own; ${'BA'[victim]} delivered ${bought(survivor).length} (${slotsOf(survivor).filter((slot) => slot.cached === true).length} of them bought by the other), ${'AB'[victim]} run again ${bought(again).length} (${slotsOf(again).filter((slot) => slot.cached === true).length} from the store)`);
	expect(new Set(submits).size).toBe(submits.length); // no prompt paid twice
	expect(submits).toHaveLength(10);
	expect(sim.log.charged).toBe(40);
	// Every job is bought (at most one may be "maybe paid": killed between its send and the answer), refused or delivered to both.
	expect(bought(survivor).length).toBeGreaterThanOrEqual(9);
	expect(statuses(again)).toEqual(statuses(survivor));
	expect(statuses(survivor).filter((status) => status === 'budget_exceeded')).toHaveLength(20);
});

it("(2) an unpriced job in namespace A holds B's unpriced jobs back: none of B's is sent while A's is out", async () => {
	const store = storeFolder();
	const hold = 'held: its answer never comes';
	const batchB = ['b 1', 'b 2', 'b 3'];
	// A's job holds the others back up to its timeout (a minute and a half: longer than B's boot); B's jobs wait up to 6 s.
	const [a, b] = await importWorkflows(home, [batchWorkflow('pidns hold a', [hold], { timeoutMinutes: 1.5 }), batchWorkflow('pidns hold b', batchB, { timeoutMinutes: 0.1 })]);
	sim.reset();
	sim.setFault(hold, { on: 'submit', hang: true });
	const env = { COMFLY_STORE_DIR: store };
	const runA = executeInNamespace(a, env);
	try {
		await until(() => accepted(hold) === 1, 'A sent its job (unpriced: no price known yet)', { limitMs: 150_000, everyMs: 50 });
		const [held] = ledgerEntries(store);
		expect(held).toMatchObject({ credits: null });
		const resultB = await executeInNamespace(b, env, 40).result;
		expectOk(resultB);
		const entries = ledgerEntries(store);
		log(`(2) A's unpriced job: ${ownerOf(held)}; B's jobs: ${slotsOf(resultB).map((slot) => String(slot.errorKind ?? slot.status)).join(', ')}; submits at the simulator: ${sim.log.submits.map((submit) => submit.prompt).join(', ')}; ledger entries ${entries.length}`);
		expect(batchB.map(accepted)).toEqual([0, 0, 0]);
		expect(slotsOf(resultB).map((slot) => slot.status)).toEqual(['failed', 'failed', 'failed']);
		expect(entries).toHaveLength(1);
	} finally {
		killNamespace(await runA.child);
		await runA.result;
	}
});
