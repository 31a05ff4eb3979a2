/**
 * The comparison chart the benchmark draws itself (bench/results.svg): makespan per approach and image
 * size, one panel per latency range, bars on a log scale (the serial ways take ~30× longer), each
 * labelled with its makespan and its ratio to the physical limit. Plain SVG text, no dependency.
 */
import type { ApproachRow, Comparison, RangeName } from './scenarios/compare';
import { APPROACHES } from './scenarios/compare';

const WIDTH = 980;
const PANEL_W = 470;
const LABEL_W = 190;
const BAR_H = 13;
const ROW_H = 2 * BAR_H + 12;
const TOP = 64;
const COLORS: Record<string, string> = { '1m': '#4c78a8', '4m': '#f58518' };

const esc = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function panel(rows: ApproachRow[], range: RangeName, title: string, x0: number, maxMs: number): string[] {
	const out: string[] = [`<text x="${x0}" y="${TOP - 22}" font-weight="bold">${esc(title)}</text>`];
	const barMax = PANEL_W - LABEL_W - 70;
	const scale = (msValue: number) => (Math.log10(Math.max(msValue, 1000)) - 3) / (Math.log10(maxMs) - 3);
	APPROACHES.forEach((approach, i) => {
		const y = TOP + i * ROW_H;
		out.push(`<text x="${x0}" y="${y + BAR_H + 4}" font-size="11">${esc(approach)}</text>`);
		rows
			.filter((row) => row.range === range && row.approach === approach)
			.forEach((row, j) => {
				const wall = row.wallMs / row.timeScale;
				const w = Math.max(2, scale(wall) * barMax);
				const by = y + j * BAR_H;
				out.push(`<rect x="${x0 + LABEL_W}" y="${by}" width="${w.toFixed(1)}" height="${BAR_H - 2}" fill="${COLORS[row.size] ?? '#888'}"/>`);
				const label = `${(wall / 1000).toFixed(1)} s · ${row.ratio.toFixed(2)}×${row.timeScale !== 1 ? ' *' : ''}`;
				out.push(`<text x="${x0 + LABEL_W + w + 4}" y="${by + BAR_H - 3}" font-size="10">${esc(label)}</text>`);
			});
	});
	return out;
}

/** The SVG document for a comparison (values from results.json's run). */
export function comparisonSvg(c: Comparison, generatedAt: string): string {
	const height = TOP + APPROACHES.length * ROW_H + 58;
	const maxMs = Math.max(...c.rows.map((row) => row.wallMs / row.timeScale)) * 1.6;
	const range = (name: RangeName) => `${(c.ranges[name].min / 1000).toFixed(1)}–${(c.ranges[name].max / 1000).toFixed(1)} s jobs`;
	const parts = [
		`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="sans-serif" font-size="12">`,
		`<rect width="100%" height="100%" fill="white"/>`,
		`<text x="10" y="20" font-size="14" font-weight="bold">30 FLUX images: makespan per approach and image size (log scale; label: makespan · ratio to the physical limit)</text>`,
		...panel(c.rows, 'short', range('short'), 10, maxMs),
		...panel(c.rows, 'long', range('long'), 10 + PANEL_W + 20, maxMs),
		`<rect x="10" y="${height - 40}" width="12" height="10" fill="${COLORS['1m']}"/><text x="26" y="${height - 31}" font-size="11">1 MiB images</text>`,
		`<rect x="120" y="${height - 40}" width="12" height="10" fill="${COLORS['4m']}"/><text x="136" y="${height - 31}" font-size="11">4 MiB images</text>`,
		`<text x="240" y="${height - 31}" font-size="11">* run with every time ÷ 10 (a 9-minute serial run otherwise), shown scaled back ×10; ratio as measured</text>`,
		`<text x="10" y="${height - 12}" font-size="10" fill="#555">npm run bench, ${esc(generatedAt)}; physical limit = slowest job's upstream time + one download</text>`,
		'</svg>',
	];
	return parts.join('\n') + '\n';
}
