/**
 * Scenario 5 alone (30 × 4 MiB, fresh worker per binary data mode): peak RSS growth ÷ payload (goals 5a/5b, ≤ 2×).
 * `npx ts-node --transpile-only bench/probeMemory.ts`. Not part of `npm run bench`.
 */
import { benchConfig } from './config';
import { fixed, mib } from './format';
import { runMemory } from './scenarios/memory';
import { openBench } from './session';

async function main() {
  const bench = await openBench(benchConfig(false));
  try {
    for (const row of await runMemory(bench)) {
      console.log(`memory ${row.mode}: growth ${mib(row.growth)} = ${fixed(row.ratio)}× payload ${mib(row.m.payloadBytes)}; pool retained ${mib(row.m.poolRetainedBytes)}; wall ${row.wallMs.toFixed(0)} ms`);
    }
  } finally {
    await bench.close();
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
