/**
 * A quick look at scenario 13's N = 30 × 16 MiB row alone (0.4–0.6 s jobs, Cache off, filesystem binary mode; a
 * warm-up batch first): the worker's longest event-loop stall (monitorEventLoopDelay), CPU per job, wall.
 * `npx ts-node --transpile-only bench/probeStall.ts [sizes, default 16m] [repeats, default 2]`
 * (MODE=default for in-memory binary data, CACHE=refresh to go through the result store). Not part of `npm run bench`.
 */
import { benchConfig } from './config';
import { openBench } from './session';
import { startSizedSim, sizeSuffix, type SizeTag } from './sizedSim';
import type { NodesBatchResult } from './protocol';

async function main() {
  const sizes = (process.argv[2] ?? '16m').split(',') as SizeTag[];
  const repeats = Number(process.argv[3] ?? 2);
  const cache = (process.env.CACHE ?? 'off') as 'off' | 'refresh';
  const bench = await openBench(benchConfig(false));
  const sized = await startSizedSim({ min: 400, max: 600 }, 'scaling');
  try {
    const w = await bench.startWorker('SC', { COMFLY_IMAGE_CONCURRENCY: '30', BENCH_BINARY_MODE: process.env.MODE ?? 'filesystem' });
    const run = async (label: string, size: SizeTag) => {
      sized.reset();
      const task = { kind: 'nodesBatch' as const, sim: sized.ref, prefix: `stall ${label}`, suffix: sizeSuffix(size), executions: [30], concurrent: true, cache, loopDelay: true };
      const { result } = await w.run<NodesBatchResult>(task);
      const d = result.loopDelay;
      console.log(`${label} ${size} cache ${cache}: wall ${result.wallMs.toFixed(0)} ms, loop delay max ${d?.maxMs.toFixed(1)} ms p99 ${d?.p99Ms.toFixed(1)} ms, CPU ${((result.cpu.user + result.cpu.system) / 30).toFixed(1)} ms/job`);
    };
    await run('warm-up', '1m');
    for (let i = 0; i < repeats; i++) for (const size of sizes) await run(`run ${i + 1}`, size);
  } finally {
    await sized.sim.close();
    await bench.close();
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
