/**
 * `npx ts-node --transpile-only bench/readmeTables.ts [--summary] [results.json]`: bench/README.md's tables
 * (goals, side by side, a real n8n beside the engine, scaling) as markdown, from a results.json, so the numbers
 * shown are the run's; `--summary`: the three lines the top-level README shows under the chart.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { realN8nBreakdownTables, realN8nColdTable, realN8nCpuBatchesTable, realN8nSummaryTable } from './reportRealN8n';
import { readmeSummaryLines } from './readmeSummary';
import type { RealN8nScenario } from './scenarios/realN8n';

interface GoalJson { id: string; goal: string; measured: string; target: string; result: string }
interface RowJson { approach: string; range: 'short' | 'long'; size: string; wallMs: number; ratio: number; pollsPerJob: number; timeScale: number }
interface ScalingJson { n: number; executions: number; size: string; wallMs: number; idealMs: number; cpuMsPerJob: number; peakRss: number; retainedBytes: number; loopDelay?: { maxMs: number }; firstCollectorMs: number }

const args = process.argv.slice(2);
const summary = args.includes('--summary');
const file = args.find((arg) => arg !== '--summary') ?? path.join(__dirname, 'results.json');
const json = JSON.parse(readFileSync(file, 'utf8')) as {
	generatedAt: string;
	machine: { cpuModel: string; cores: number; node: string; loadAverageAtStart: number[] };
	goals: GoalJson[];
	scenarios: { comparison: { ranges: Record<string, { min: number; max: number }>; sizes: string[]; rows: RowJson[] }; scaling: ScalingJson[]; realN8n?: RealN8nScenario };
};

if (summary) {
	console.log(readmeSummaryLines(json).join('\n'));
	process.exit(0);
}

const cell = (text: string) => text.replace(/\|/g, '\\|');
const md = (header: string[], rows: string[][]) => [header, header.map(() => '---'), ...rows].map((r) => `| ${r.map(cell).join(' | ')} |`).join('\n');
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mib = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MiB`;

const { ranges, sizes, rows } = json.scenarios.comparison;
const cols = ['short', 'long'].flatMap((range) => sizes.map((size) => ({ range, size })));
const rangeName = (range: string) => `${(ranges[range].min / 1000).toFixed(1)}–${(ranges[range].max / 1000).toFixed(1)} s`;
const approaches = [...new Set(rows.map((r) => r.approach))];

console.log(`Run: ${json.generatedAt}, ${json.machine.cpuModel}, ${json.machine.cores} cores, Node ${json.machine.node}, load average at start ${json.machine.loadAverageAtStart.map((x) => x.toFixed(1)).join(' / ')}\n`);
console.log(md(['#', 'goal', 'measured', 'target', ''], json.goals.map((g) => [g.id, g.goal, g.measured, g.target, g.result])));
console.log('');
console.log(
	md(
		['30 jobs', ...cols.map((c) => `${rangeName(c.range)}, ${c.size.replace('m', ' MiB')}`)],
		approaches.map((approach) => [
			approach,
			...cols.map(({ range, size }) => {
				const row = rows.find((r) => r.approach === approach && r.range === range && r.size === size);
				return row ? `${row.ratio.toFixed(2)}×${row.timeScale !== 1 ? '*' : ''} (${secs(row.wallMs / row.timeScale)}, ${row.pollsPerJob.toFixed(1)} polls/job)` : '—';
			}),
		]),
	),
);
console.log('');
const real = json.scenarios.realN8n;
if (real) {
	console.log(`A real n8n beside the engine (${real.runs} run(s) per shape and driver, medians; load average ${real.loadAverage.atStart.map((x) => x.toFixed(1)).join(' / ')} at its start):\n`);
	console.log(realN8nSummaryTable(real));
	for (const t of realN8nBreakdownTables(real)) console.log(`\n${t}`);
	const batches = realN8nCpuBatchesTable(real);
	if (batches) console.log(`\n${batches}`);
	console.log(`\n${realN8nColdTable(real)}\n`);
} else console.log('(this results.json has no real-n8n run: the real-n8n scenario was off)\n');
console.log(
	md(
		['N', 'executions', 'image', 'wall', 'ideal', 'first collector', 'CPU/job', 'peak RSS', 'retained after', 'loop delay max'],
		json.scenarios.scaling.map((r) => [String(r.n), String(r.executions), r.size.replace('m', ' MiB'), secs(r.wallMs), secs(r.idealMs), secs(r.firstCollectorMs), `${r.cpuMsPerJob.toFixed(1)} ms`, mib(r.peakRss), mib(r.retainedBytes), `${(r.loopDelay?.maxMs ?? NaN).toFixed(0)} ms`]),
	),
);
