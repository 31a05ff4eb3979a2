/**
 * The account-wide limit shared through a real redis-server (started by the test on a loopback port):
 * two processes sharing one limit never exceed it at the simulator; a process killed with SIGKILL while
 * holding leases does not block the other for longer than the lease time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import type { RelaySimulator } from '../../relay-sim';
import { useRelaySimulator } from '../relay-sim/useRelaySimulator';
import type { TestRedis } from '../support/redisServer';
import { useRedisServer } from '../redis/useRedisServer';
import { until } from '../support/until';
import { leaseStamps, limitKeys } from '../redis/limitLeases';

let sim: RelaySimulator;
useRelaySimulator({ latencyMs: 400 }, (started) => (sim = started));

let redis: TestRedis;
useRedisServer((started) => (redis = started));

interface ChildResult {
	succeeded: number;
	failed: number;
	errors: string[];
	shared: boolean;
}

// A live process refreshes its leases every 500 ms; one starved past the TTL between two refreshes loses them (by
// design: that is how a dead one's lapse). 2 s was too short on the loaded 2-core machine: a live A was found holding
// 3 of its 12 leases; 6 s leaves a live process 5.5 s between refreshes.
const LEASE = { ttlMs: 6000, refreshMs: 500 };
const children: ChildProcess[] = [];
afterEach(() => {
	for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function startChild(prefix: string, jobs: number, limit = 12): { child: ChildProcess; result: Promise<ChildResult> } {
	const args = { simUrl: sim.url, apiKey: sim.apiKey, redisUrl: redis.url, limit, jobs, prefix, ...LEASE };
	const child: ChildProcess = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', path.join(__dirname, 'support', 'limitedJobs.ts'), JSON.stringify(args)], {
		stdio: ['ignore', 'pipe', 'pipe'],
		env: { ...process.env, TS_NODE_TRANSPILE_ONLY: 'true' },
	});
	children.push(child);
	let out = '';
	let err = '';
	child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
	child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
	const result = new Promise<ChildResult>((resolve, reject) => {
		child.on('exit', (code, signal) => {
			const line = out.trim().split('\n').pop() ?? '';
			if (code === 0 && line.startsWith('{')) resolve(JSON.parse(line) as ChildResult);
			else reject(new Error(`child ${prefix} exited ${code ?? signal}: ${err.slice(-2000)}`));
		});
	});
	return { child, result };
}


describe('one account-wide limit shared by processes through Redis', () => {
	it('two processes sharing a limit of 12: never more than 12 active at the simulator, every job succeeds', async () => {
		const a = startChild('proc A', 30);
		const b = startChild('proc B', 30);
		const [ra, rb] = await Promise.all([a.result, b.result]);
		expect(ra).toMatchObject({ succeeded: 30, failed: 0, shared: true });
		expect(rb).toMatchObject({ succeeded: 30, failed: 0, shared: true });
		expect(sim.log.tasks.size).toBe(60);
		expect(sim.log.peakActiveTasks).toBeLessThanOrEqual(12);
		expect(sim.log.peakActiveTasks).toBeGreaterThan(6); // both processes' jobs ran side by side, not one process alone
		expect(sim.log.submits.filter((s) => s.status === 429)).toHaveLength(0);
	});

	it('a process killed with SIGKILL while holding all 12 leases: they lapse within the lease time and the other goes on', async () => {
		sim.setLatency(600_000); // A's tasks never finish while A lives
		const a = startChild('doomed', 12);
		a.result.catch(() => undefined);
		await until(() => sim.activeTasks() === 12, 'A holds 12 leases', { limitMs: 240_000, everyMs: 25 });
		const client = redis.client();
		try {
			const keys = await limitKeys(client);
			expect(keys).toHaveLength(1);
			expect(await client.zcard(keys[0])).toBe(12);
			a.child.kill('SIGKILL');
			await a.result.catch(() => undefined); // A is gone: its leases' stamps are final
			const stamps = await leaseStamps(client, keys[0]);
			expect(stamps).toHaveLength(12);
			const firstLapse = stamps[0] + LEASE.ttlMs; // the oldest of A's leases is past its TTL from then on
			sim.setLatency(200);
			const b = startChild('survivor', 12);
			const rb = await b.result;
			expect(rb).toMatchObject({ succeeded: 12, failed: 0, shared: true });
			// Never early: B's first submit went out only once one of A's leases, as Redis holds it, was past its TTL.
			const firstSurvivor = Math.min(...sim.log.submits.filter((s) => s.prompt.startsWith('survivor')).map((s) => s.at));
			expect(firstSurvivor).toBeGreaterThanOrEqual(firstLapse);
			expect(await client.zcard(keys[0])).toBe(0);
		} finally {
			client.disconnect();
		}
	});
});
