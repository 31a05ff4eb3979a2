/**
 * The lines of benchmark numbers the top-level README shows under the chart, computed from a results.json
 * (`npx ts-node --transpile-only bench/readmeTables.ts --summary`); test/bench/readmeSummary.test.ts checks
 * that the README holds exactly these lines for bench/results.json.
 */

export interface SummaryJson {
	generatedAt: string;
	machine: { cores: number; node: string };
	goals: ReadonlyArray<{ result: string }>;
	scenarios: {
		comparison: {
			ranges: Record<string, { min: number; max: number }>;
			rows: ReadonlyArray<{ approach: string; range: string; size: string; wallMs: number; ratio: number; timeScale: number }>;
		};
		realN8n?: {
			shapes: ReadonlyArray<{
				shape: { id: string; target: number; pollsTarget?: number };
				drivers: ReadonlyArray<{ driver: string; median: { ratio: number; pollsPerJob: number } }>;
			}>;
		};
	};
}

const ENGINE = 'engine (in process)';
const REAL_SHAPES: Record<string, string> = { 'real-a': '1.5–3.5 s, 1 MiB', 'real-b': '1.5–3.5 s, 4 MiB', 'real-c': '12–20 s, 1 MiB' };

/** The real-n8n line: per shape, each n8n version's median makespan ÷ slowest job beside the engine's (absent: not run). */
function realN8nLine(realN8n: NonNullable<SummaryJson['scenarios']['realN8n']>): string {
	const shapes = realN8n.shapes.map(({ shape, drivers }) => {
		const n8n = drivers.filter((d) => d.driver !== ENGINE).map((d) => `${d.driver} ${d.median.ratio.toFixed(3)}×`);
		const engine = drivers.find((d) => d.driver === ENGINE);
		const polls = shape.pollsTarget === undefined ? '' : `, ${drivers.filter((d) => d.driver !== ENGINE).map((d) => d.median.pollsPerJob.toFixed(1)).join(' / ')} polls per job (goal ≤ ${shape.pollsTarget})`;
		return `${REAL_SHAPES[shape.id] ?? shape.id}: ${n8n.join(', ')}${engine ? ` (engine ${engine.median.ratio.toFixed(3)}×)` : ''}, goal ≤ ${shape.target}×${polls}`;
	});
	return `- In a real n8n (\`n8n start\`, webhook-fired), 30 jobs end at this multiple of the slowest job (medians): ${shapes.join('; ')}.`;
}

const THIS_PACKAGE = 'this package (submit + collect)';
const COMFYUI = 'ComfyUI pack (5 s poll, sleeps first)';
const N8N_NATIVE = 'n8n native (HTTP Request + Wait 5 s)';

export function readmeSummaryLines(json: SummaryJson): string[] {
	const { ranges, rows } = json.scenarios.comparison;
	const row = (approach: string, range: string) => {
		const found = rows.find((r) => r.approach === approach && r.range === range && r.size === '1m');
		if (!found) throw new Error(`results.json has no side-by-side row for ${approach}, ${range}, 1m`);
		return found;
	};
	const ratio = (approach: string, range: string) => {
		const { ratio: value, timeScale } = row(approach, range);
		return `${value.toFixed(2)}×${timeScale !== 1 ? '*' : ''}`;
	};
	const rangeLine = (range: string) => {
		const { min, max } = ranges[range];
		return (
			`- 30 jobs of ${(min / 1000).toFixed(1)}–${(max / 1000).toFixed(1)} s, 1 MiB images: this package ${ratio(THIS_PACKAGE, range)} the physical limit ` +
			`(${(row(THIS_PACKAGE, range).wallMs / 1000).toFixed(1)} s), the ComfyUI pack's way ${ratio(COMFYUI, range)}, n8n's HTTP Request + Wait loop ${ratio(N8N_NATIVE, range)}.`
		);
	};
	const count = (result: string) => json.goals.filter((g) => g.result === result).length;
	const realN8n = json.scenarios.realN8n;
	return [
		rangeLine('short'),
		rangeLine('long'),
		...(realN8n ? [realN8nLine(realN8n)] : []),
		`- Goals: ${count('PASS')} PASS, ${count('MISS')} MISS, ${count('INFO')} for information (run ${json.generatedAt}, ${json.machine.cores} cores, Node ${json.machine.node}; \`*\`: run at a tenth of the time scale).`,
	];
}
