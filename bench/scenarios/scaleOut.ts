/**
 * Scenario 10, scale-out: one account-wide limit shared through a real redis-server.
 * (a) 1, 2 and 4 processes share a limit of 12 over 48 jobs of latency L: makespan vs the ideal
 *     ceil(48 / 12) · L, the simulator's peak active tasks and 429s;
 * (b) the per-job cost of the leases: sequential admit → accept → release, with Redis vs without;
 * (c) adaptive: an account capped at 10 at the simulator, a pool of 30, 30 jobs, vs the same run
 *     configured at exactly 10 (wall-time ratio; goal: within 10 %).
 * Runs inside `npm run bench`, or alone: `npx ts-node --transpile-only bench/scenarios/scaleOut.ts [--quick]`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

import { startRelaySimulator } from '../../relay-sim';
import { accountId } from '../../src/account';
import { AccountLimiter, createAccountLimiter, limitName } from '../../src/accountLimit';
import { readRedisTarget } from '../../src/config';
import { closeFluxAgent, generateImage } from '../../src/flux';
import { SharedRedis } from '../../src/redis';
import { startTestRedis, type TestRedis } from '../../test/support/redisServer';
import type { ScaleOutDone, ScaleOutRun } from '../scaleOutWorker';
import { flux3Image } from '../../src/models';

export interface ScaleOutRow {
	processes: number;
	jobs: number;
	limit: number;
	latencyMs: number;
	wallMs: number;
	idealMs: number;
	efficiency: number;
	peakActive: number;
	rejected: number;
	failed: number;
}

export interface ScaleOut {
	rows: ScaleOutRow[];
	lease: { jobs: number; withRedisMs: number; withoutMs: number; perJobMs: number };
	adaptive: { cap: number; pool: number; jobs: number; latencyMs: number; adaptiveWallMs: number; exactWallMs: number; ratio: number; rejected: number; failed: number };
}

const request = (prompt: string) => ({ model: flux3Image, prompt, values: { resolution: '1k', aspectRatio: 'auto', grounding: true, safetyTolerance: 2 }, images: [] });

function startChild(): Promise<ChildProcess> {
	const child = fork(path.join(__dirname, '..', 'scaleOutWorker.ts'), [], { execArgv: ['-r', 'ts-node/register/transpile-only'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
	return new Promise((resolve, reject) => {
		child.once('message', () => resolve(child));
		child.once('exit', (code) => reject(new Error(`scale-out worker exited ${code}`)));
	});
}

async function processesRow(redis: TestRedis, processes: number, latencyMs: number): Promise<ScaleOutRow> {
	const jobs = 48;
	const limit = 12;
	const sim = await startRelaySimulator({ latencyMs, maxActiveTasks: limit, imageSize: { width: 8, height: 8 } });
	const children = await Promise.all(Array.from({ length: processes }, () => startChild()));
	try {
		const done = await Promise.all(
			children.map((child, i) => {
				const msg: ScaleOutRun = { type: 'run', simUrl: sim.url, apiKey: sim.apiKey, redisUrl: redis.url, limit, jobs: jobs / processes, prefix: `p${processes}-${i}` };
				const answer = new Promise<ScaleOutDone>((resolve) => child.once('message', (m: ScaleOutDone) => resolve(m)));
				child.send(msg);
				return answer;
			}),
		);
		const wallMs = Math.max(...done.map((d) => d.finishedAt)) - Math.min(...done.map((d) => d.startedAt));
		const idealMs = Math.ceil(jobs / limit) * latencyMs;
		const rejected = sim.log.submits.filter((x) => x.status === 429).length;
		const failed = done.reduce((sum, d) => sum + d.failed, 0);
		return { processes, jobs, limit, latencyMs, wallMs, idealMs, efficiency: idealMs / wallMs, peakActive: sim.log.peakActiveTasks, rejected, failed };
	} finally {
		for (const child of children) child.kill();
		await sim.close();
	}
}

async function leaseCost(redis: TestRedis): Promise<ScaleOut['lease']> {
	const jobs = 300;
	const sharedRedis = new SharedRedis(readRedisTarget({ COMFLY_REDIS_URL: redis.url })!);
	const shared = createAccountLimiter(sharedRedis, { warn: () => undefined });
	const name = limitName(accountId({ apiStyle: 'relay', baseUrl: 'http://127.0.0.1', apiKey: 'bench-key' }), 'flux-3-image');
	const local = new AccountLimiter();
	const signal = new AbortController().signal;
	const time = async (limiter: AccountLimiter) => {
		const started = process.hrtime.bigint();
		for (let i = 0; i < jobs; i++) {
			const admission = limiter.admission(name, 12);
			await admission.acquire(signal);
			admission.accepted();
			admission.release('ready');
		}
		return Number(process.hrtime.bigint() - started) / 1e6;
	};
	await time(shared); // warm-up (connection, Lua script load)
	const withRedisMs = await time(shared);
	const withoutMs = await time(local);
	await sharedRedis.close();
	return { jobs, withRedisMs, withoutMs, perJobMs: (withRedisMs - withoutMs) / jobs };
}

async function adaptiveRun(limit: number, latencyMs: number) {
	const cap = 10;
	const sim = await startRelaySimulator({ latencyMs, maxActiveTasks: cap, retryAfterSeconds: 1, imageSize: { width: 8, height: 8 } });
	const limiter = new AccountLimiter();
	const creds = { apiStyle: 'relay' as const, baseUrl: sim.url, apiKey: sim.apiKey };
	const started = Date.now();
	const outcomes = await Promise.allSettled(
		Array.from({ length: 30 }, (_, i) => generateImage(creds, request(`adaptive ${limit} ${i}`), { admission: limiter.admission(limitName(accountId(creds), 'flux-3-image'), limit) })),
	);
	const wallMs = Date.now() - started;
	const rejected = sim.log.submits.filter((x) => x.status === 429).length;
	await sim.close();
	return { wallMs, rejected, failed: outcomes.filter((o) => o.status === 'rejected').length };
}

export async function runScaleOut(options: { quick: boolean; log: (line: string) => void }): Promise<ScaleOut> {
	const latencyMs = options.quick ? 1000 : 2000;
	const redis = await startTestRedis();
	try {
		const rows: ScaleOutRow[] = [];
		for (const processes of [1, 2, 4]) {
			const row = await processesRow(redis, processes, latencyMs);
			options.log(`scale-out: ${processes} process(es) sharing 12: wall ${row.wallMs} ms vs ideal ${row.idealMs} ms (${row.efficiency.toFixed(2)}), peak ${row.peakActive}, 429s ${row.rejected}`);
			rows.push(row);
		}
		const lease = await leaseCost(redis);
		options.log(`scale-out: lease cost ${lease.perJobMs.toFixed(2)} ms per job`);
		const exact = await adaptiveRun(10, latencyMs);
		const adaptive = await adaptiveRun(30, latencyMs);
		const ratio = adaptive.wallMs / exact.wallMs;
		options.log(`scale-out: adaptive pool 30 vs exactly 10 against a cap of 10: ${adaptive.wallMs} / ${exact.wallMs} ms = ${ratio.toFixed(3)} (${adaptive.rejected} × 429)`);
		return {
			rows,
			lease,
			adaptive: { cap: 10, pool: 30, jobs: 30, latencyMs, adaptiveWallMs: adaptive.wallMs, exactWallMs: exact.wallMs, ratio, rejected: adaptive.rejected, failed: adaptive.failed + exact.failed },
		};
	} finally {
		await redis.stop();
		await closeFluxAgent();
	}
}

if (require.main === module) {
	runScaleOut({ quick: process.argv.includes('--quick'), log: (line) => console.log(line) })
		.then((result) => console.log(JSON.stringify(result, null, 2)))
		.catch((error: unknown) => {
			console.error(error);
			process.exitCode = 1;
		});
}
