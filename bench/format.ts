/** Text formatting for the benchmark's console output: tables, units, the progress log. */
import { MB } from './config';

export function table(headers: string[], rows: Array<Array<string | number>>): string {
	const cells = rows.map((row) => row.map(String));
	const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((row) => (row[i] ?? '').length)));
	const line = (row: string[]) => '| ' + row.map((cell, i) => cell.padEnd(widths[i])).join(' | ') + ' |';
	return [line(headers), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...cells.map(line)].join('\n');
}

/** "250 ms", "2 s", "1.5 s". */
export function duration(value: number): string {
	return value < 1000 ? `${value} ms` : `${Number((value / 1000).toFixed(2))} s`;
}
export const percent = (fraction: number) => `${Number((fraction * 100).toFixed(1))} %`;
export const ms = (n: number, digits = 0) => (Number.isFinite(n) ? `${n.toFixed(digits)} ms` : 'n/a');
export const s = (n: number) => (Number.isFinite(n) ? `${(n / 1000).toFixed(2)} s` : 'n/a');
export const fixed = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
export const mib = (n: number) => (Number.isFinite(n) ? `${(n / MB).toFixed(1)} MiB` : 'n/a');

export const benchStart = Date.now();

export function log(message: string): void {
	const elapsed = ((Date.now() - benchStart) / 1000).toFixed(0).padStart(4);
	console.log(`[bench ${elapsed}s] ${message}`);
}
