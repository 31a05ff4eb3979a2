/** The README's benchmark lines are the ones bench/readmeSummary.ts computes from bench/results.json (so a new run's numbers must be copied in). */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

import { readmeSummaryLines, type SummaryJson } from '../../bench/readmeSummary';

const ROOT = path.resolve(__dirname, '../..');

it('the README shows the summary of bench/results.json, line for line', () => {
	const results = JSON.parse(readFileSync(path.join(ROOT, 'bench/results.json'), 'utf8')) as SummaryJson;
	const lines = readmeSummaryLines(results);
	expect(lines).toHaveLength(results.scenarios.realN8n ? 4 : 3);
	const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
	expect(readme).toContain(lines.join('\n'));
});

it('a changed ratio changes the lines (the check is not vacuous)', () => {
	const results = JSON.parse(readFileSync(path.join(ROOT, 'bench/results.json'), 'utf8')) as SummaryJson;
	const rows = results.scenarios.comparison.rows.map((row) => ({ ...row, ratio: row.ratio + 1 }));
	const changed = readmeSummaryLines({ ...results, scenarios: { comparison: { ...results.scenarios.comparison, rows } } });
	expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).not.toContain(changed[0]);
});
