/**
 * The real-n8n scenario alone (a real n8n beside the engine, the 30-job shapes), then the package-CPU scenario on the
 * same versions (bench/scenarios/packageCpu.ts), for working on the real-n8n numbers:
 * `npx ts-node --transpile-only bench/realN8nBench.ts [--real-n8n=both|oldest|newest|<version>] [--real-runs=N] [--quick]`.
 * Prints its goals and tables and writes $TMPDIR/bench-real-n8n.json (never bench/results.json). `npm run bench`
 * runs the same scenario among the others.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { describeMachine, machineLine, realN8nJson } from './benchResults';
import { benchConfig, parseBenchArgs } from './config';
import { benchStart, log, s, table } from './format';
import { packageCpuGoals } from './goalsPackageCpu';
import { realN8nGoals } from './goalsRealN8n';
import { realN8nReport } from './reportRealN8n';
import { runPackageCpu } from './scenarios/packageCpu';
import { runRealN8n } from './scenarios/realN8n';
import { openBench } from './session';

async function main(): Promise<void> {
	const args = parseBenchArgs(process.argv.slice(2));
	const config = benchConfig(args.quick, { versions: args.realN8n ?? (args.quick ? 'oldest' : 'both'), runs: args.realRuns });
	if (config.REAL_N8N.versions.length === 0) throw new Error('bench/realN8nBench.ts: --real-n8n=off leaves nothing to run');
	const machine = describeMachine();
	log(machineLine(machine));
	const bench = await openBench(config);
	try {
		const scenario = await runRealN8n(bench);
		if (!scenario) return;
		const packageCpu = await runPackageCpu(bench, scenario);
		const goals = [...realN8nGoals(scenario, config.REAL_N8N.asked), ...packageCpuGoals(packageCpu, config.REAL_N8N.asked)].filter((goal) => config.REAL_N8N.versions.some((version) => goal.id.endsWith(`/${version}`)));
		console.log('');
		console.log(table(['#', 'Goal', 'Measured', 'Target', 'Result'], goals.map((g) => [g.id, g.goal, g.measured, g.target, g.result])));
		console.log('');
		console.log(realN8nReport(scenario));
		for (const g of goals.filter((goal) => goal.result === 'MISS')) console.log(`\n${g.id}: ${g.why ?? ''}`);
		const out = path.join(os.tmpdir(), 'bench-real-n8n.json');
		writeFileSync(out, JSON.stringify({ generatedAt: new Date().toISOString(), benchWallMs: Date.now() - benchStart, machine, config: config.REAL_N8N, quick: config.quick, goals, realN8n: realN8nJson(scenario), packageCpu }, null, 2) + '\n');
		console.log(`\nWhole run ${s(Date.now() - benchStart)}; results written to ${out}`);
	} finally {
		await bench.close();
	}
}

main().catch((error: unknown) => {
	console.error(`real-n8n bench failed after ${((Date.now() - benchStart) / 1000).toFixed(0)} s:`, error);
	process.exitCode = 1;
});
