/**
 * A quick look at scenario 12's package rows alone (1.5–3.5 s jobs, N = 30, one warm-up batch first; `created`: when
 * the first, median and last task existed upstream, ms after the batch started), for working on performance:
 * `npx ts-node --transpile-only bench/probeRows.ts 1m,4m,16m` (MODE=default for in-memory binary data;
 * BENCH_WORKER_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" profiles the worker; STORE_MAX_MB=N gives the worker
 * COMFLY_STORE_MAX_MB=N, e.g. 100000: no prune triggered by the bytes written; each row gives the worker's
 * CPU, user and system, and on Linux ends with the machine's kernel time and disk traffic meanwhile (machineIo.ts); DROP_KEPT=1
 * deletes the worker's stored results and n8n's binary data after each batch). Not part of `npm run bench`.
 */
import { benchConfig, storeBoundEnv } from './config';
import { openBench } from './session';
import { startSizedSim, sizeSuffix, peakPollsPerSecond, type SizeTag } from './sizedSim';
import { join, pollsPerJob } from './jobs';
import type { NodesBatchResult } from './protocol';
import { max } from './stats';
import { describeIo, ioBetween, readMachineIo } from './machineIo';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { RESULTS_SUBFOLDER } from '../src/store/resultStore';
import { benchStore } from './workerProcess';

async function main() {
  const sizes = (process.argv[2] ?? '1m,4m,16m').split(',') as SizeTag[];
  // n8n's binary data in a folder of this probe's own, so DROP_KEPT deletes nothing of any other run.
  const binaryDir = mkdtempSync(path.join(tmpdir(), 'flux-probe-binary-'));
  const bench = await openBench(benchConfig(false));
  const sized = await startSizedSim({ min: 1500, max: 3500 }, 'short');
  try {
    // The worker drops the caller's COMFLY_* (each scenario sets its own): STORE_MAX_MB reaches it as COMFLY_STORE_MAX_MB.
    const a = await bench.startWorker('A', { COMFLY_IMAGE_CONCURRENCY: '30', BENCH_BINARY_MODE: process.env.MODE ?? 'filesystem', BENCH_BINARY_DIR: binaryDir, ...storeBoundEnv('STORE_MAX_MB') });
    const run = async (prefix: string, size: SizeTag) => {
      const ioBefore = readMachineIo();
      const { result } = await a.run<NodesBatchResult>({ kind: 'nodesBatch', sim: sized.ref, prefix, suffix: sizeSuffix(size), executions: [30], concurrent: false });
      const jobs = join(result.jobs, sized.sim.log);
      const slowest = max(jobs.map((j) => j.latencyMs ?? NaN));
      const lastFin = max(jobs.map((j) => j.finishedAt ?? NaN));
      const lags = jobs.map((j) => j.lagMs ?? NaN).sort((x, y) => x - y);
      // When the simulator created each task, ms after the batch started: first, median, last.
      const created = jobs.map((j) => Math.round((j.createdAt ?? NaN) - result.startedAt)).sort((x, y) => x - y);
      console.log(`${prefix} ${size}: wall ${result.wallMs} slowest ${slowest} ratio ${(result.wallMs / slowest).toFixed(3)} polls/job ${pollsPerJob(jobs).toFixed(1)} peak ${peakPollsPerSecond(sized.sim.log.pollTimes, result.startedAt, result.startedAt + result.wallMs)} tail ${result.startedAt + result.wallMs - lastFin} lag p50 ${lags[15]} max ${lags[29]} created ${created[0]}/${created[15]}/${created[29]} worker CPU user ${Math.round(result.cpu.user)} sys ${Math.round(result.cpu.system)} ms${describeIo(ioBetween(ioBefore, readMachineIo()), '; ')}`);
      // DROP_KEPT=1: the batch's stored results and n8n's copies deleted after it (as a prune would), so the next one starts with nothing kept.
      if (process.env.DROP_KEPT === '1') {
        rmSync(path.join(benchStore(), RESULTS_SUBFOLDER), { recursive: true, force: true });
        rmSync(path.join(binaryDir, 'workflows'), { recursive: true, force: true }); // n8n's binary data: workflows/<id>/executions/<id>/…
      }
    };
    await run('short warm-up', '1m');
    for (const size of sizes) await run('short job', size);
  } finally {
    await sized.sim.close();
    await bench.close();
    rmSync(binaryDir, { recursive: true, force: true });
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
