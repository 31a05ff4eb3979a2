/** Small statistics and scheduling helpers for the benchmark (pure functions). */

export function quantile(values: readonly number[], q: number): number {
	const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
	if (sorted.length === 0) return NaN;
	const pos = (sorted.length - 1) * q;
	const lo = Math.floor(pos);
	const hi = Math.ceil(pos);
	return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export const median = (values: readonly number[]) => quantile(values, 0.5);
export const p95 = (values: readonly number[]) => quantile(values, 0.95);

export function mean(values: readonly number[]): number {
	const finite = values.filter((v) => Number.isFinite(v));
	return finite.length === 0 ? NaN : finite.reduce((a, b) => a + b, 0) / finite.length;
}

export function max(values: readonly number[]): number {
	return values.reduce((a, b) => (b > a ? b : a), -Infinity);
}

export interface Summary {
	n: number;
	mean: number;
	p50: number;
	p95: number;
	max: number;
}

export function summarize(values: readonly number[]): Summary {
	return { n: values.length, mean: mean(values), p50: median(values), p95: p95(values), max: max(values) };
}

/**
 * Makespan of `durations` (in submission order) on `workers` identical workers, each job taking the
 * next free worker (FIFO list scheduling, as the pool does) with zero overhead: the ideal a real run
 * is compared with when job durations vary.
 */
export function listScheduleMakespan(durations: readonly number[], workers: number): number {
	const free = new Array<number>(Math.max(1, workers)).fill(0);
	let makespan = 0;
	for (const d of durations) {
		let best = 0;
		for (let i = 1; i < free.length; i++) if (free[i] < free[best]) best = i;
		free[best] += d;
		makespan = Math.max(makespan, free[best]);
	}
	return makespan;
}

