/**
 * A quick look at the head of real-a's batches in the engine's worker (30 jobs of 1.5–3.5 s, 1 MiB, filesystem binary
 * mode): when each job's worker started and when its task existed upstream, ms after the submit node started, and
 * where the batch's slowest job was among them. `npx ts-node --transpile-only bench/probeHeadOrder.ts [batches, default 6]`
 * (the first batch warms up: no learned times yet); with `STRACE=FILE` the fourth batch runs under `strace -f -ttt -T`
 * attached to the worker (slower: read its syscalls, not its times). Not part of `npm run bench`.
 */
import { spawn } from 'node:child_process';

import { benchConfig } from './config';
import { fixed } from './format';
import { checkBatch } from './jobs';
import type { NodesBatchResult } from './protocol';
import { openBench } from './session';
import { startSizedSim, sizeSuffix } from './sizedSim';

const ms = (n: number) => n.toFixed(0);

async function main() {
	const batches = Number(process.argv[2] ?? 6);
	const bench = await openBench(benchConfig(false));
	// The seeds of the real-n8n scenario's short range: the same prompts get the same latencies there and here.
	const sized = await startSizedSim({ min: 1500, max: 3500 }, 'short');
	try {
		const worker = await bench.startWorker('E', { COMFLY_IMAGE_CONCURRENCY: '30', BENCH_BINARY_MODE: 'filesystem' });
		for (let b = 0; b < batches; b++) {
			const traced = b === 3 && process.env.STRACE ? spawn('strace', ['-f', '-ttt', '-T', '-p', String(worker.child.pid), '-o', process.env.STRACE], { stdio: 'ignore' }) : undefined;
			const traceEnded = traced && new Promise<void>((resolve, reject) => {
				traced.once('error', (error) => reject(new Error(`STRACE: strace did not start (${error.message})`)));
				traced.once('exit', () => resolve());
			});
			if (traced) await Promise.race([new Promise((resolve) => setTimeout(resolve, 1500)), traceEnded]); // strace attaches to every thread
			if (traced && (traced.exitCode !== null || traced.signalCode !== null)) throw new Error(`STRACE: strace ended before the batch (exit ${traced.exitCode ?? traced.signalCode}): may it attach (ptrace)?`);
			const { result } = await worker.run<NodesBatchResult>({ kind: 'nodesBatch', sim: sized.ref, prefix: b === 0 ? 'short warm-up' : 'short job', suffix: sizeSuffix('1m'), executions: [30], concurrent: false });
			if (traced) {
				traced.kill('SIGINT');
				await traceEnded;
			}
			checkBatch(`batch ${b}`, result, 30);
			const untracked = result.jobs.filter((job) => job.startedAt === undefined || !sized.sim.log.tasks.has(job.taskId ?? ''));
			if (untracked.length > 0) throw new Error(`batch ${b}: ${untracked.length} job(s) without a start or a task in the simulator's log`);
			const t0 = result.executions[0].nodes!.Submit!.startTime;
			const jobs = result.jobs.map((job, i) => {
				const task = sized.sim.log.tasks.get(job.taskId ?? '');
				return { i, started: (job.startedAt ?? NaN) - t0, created: (task?.createdAt ?? NaN) - t0, latency: task?.latencyMs ?? NaN };
			});
			const slowest = jobs.reduce((a, j) => (j.latency > a.latency ? j : a));
			// 30 jobs: index 15 is the upper median.
			const created = jobs.map((j) => j.created).sort((x, y) => x - y);
			const started = jobs.map((j) => j.started).sort((x, y) => x - y);
			console.log(
				`batch ${b}${b === 0 ? ' (warm-up)' : ''}${traced ? ' (under strace)' : ''}: wall ${ms(result.wallMs)} ms = ${fixed(result.wallMs / slowest.latency, 3)}× the slowest job; ` +
					`workers started ${ms(started[0])}–${ms(started[29])} ms; tasks exist from ${ms(created[0])} (median ${ms(created[15])}) to ${ms(created[29])} ms; ` +
					`the slowest job (item ${slowest.i}) at ${ms(slowest.created)} ms`,
			);
			if (traced) console.log(`  strace window (epoch ms): ${t0} to ${t0 + created[29]}`);
		}
		await worker.close();
	} finally {
		await sized.sim.close();
		await bench.close();
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
