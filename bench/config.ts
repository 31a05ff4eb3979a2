/** The benchmark's configuration: pool width, latency, image size and bounds; `--quick` shrinks every scenario. */
import { z } from 'zod';

import { N8N_MATRIX, NEWEST_N8N, OLDEST_N8N } from '../scripts/n8n/versions';

export const MB = 1024 * 1024;

/** The real-n8n scenario (the same 30-job shapes through a real `n8n start`): which versions, how many measured batches. */
export interface RealN8nConfig {
	/** n8n versions of the support matrix (scripts/n8n/versions.ts) to run; empty: the scenario is skipped. */
	versions: string[];
	/** Measured batches per shape and driver, after one cold batch per latency range (the medians count). */
	runs: number;
	/** How the versions were asked for (`--real-n8n=`), for the report. */
	asked: string;
}

export interface BenchConfig {
	/** `--quick`: latencies ÷ 10 and fewer repetitions, to check the plumbing (results go to a temp file). */
	quick: boolean;
	/** Pool width (COMFLY_IMAGE_CONCURRENCY of worker A). */
	C: number;
	/** Mean upstream latency, ms. */
	L_MEAN: number;
	/** "About 2 s, with jitter": uniform in [1.9 s, 2.1 s], deterministic per prompt (seeded). */
	LATENCY: { min: number; max: number; seed: string };
	/** Image size of the memory scenario. */
	IMAGE_BYTES: number;
	/** Image size of the main simulator (scenarios 1–4, 6). */
	MAIN_IMAGE_BYTES: number;
	/** Scenario 7: the binary reference image the 30 items share. */
	REFERENCE_BYTES: number;
	/** Scenario 8 (the result store): the image size the simulator serves. */
	STORE_IMAGE_BYTES: number;
	/** Scenario 8b: alternating pairs of fresh batches, Cache `reuse` vs `off` (the medians count). */
	STORE_MISS_PAIRS: number;
	/** N = 30 runs of scenario 1 (the median counts). */
	REPEATS_30: number;
	/** Scenario 3: warm-up runs and timed runs. */
	OVERHEAD_RUNS: { warmup: number; reps: number };
	/** Hard bound on the whole run: abort (and say so) if the benchmark takes longer. */
	BENCH_DEADLINE_MS: number;
	/** Per-task bound in the orchestrator (the worker has its own, shorter one). */
	TASK_DEADLINE_MS: number;
	/** The model's latencies (scenario 4, second table). */
	MODEL_LATENCIES: number[];
	/** The poll rate of BFL's own polling examples (one poll per 0.5 s), for comparison. */
	BFL_EXAMPLE_POLLS_PER_SECOND: number;
	/** The real-n8n scenario. */
	REAL_N8N: RealN8nConfig;
}

export function benchConfig(quick: boolean, realN8n: { versions?: string; runs?: number } = {}): BenchConfig {
	const scale = quick ? 0.1 : 1;
	const asked = realN8n.versions ?? (quick ? 'oldest' : 'both');
	return {
		quick,
		C: 30,
		L_MEAN: 2000 * scale,
		LATENCY: { min: 1900 * scale, max: 2100 * scale, seed: 'bench' },
		IMAGE_BYTES: 4 * MB,
		MAIN_IMAGE_BYTES: 1 * MB,
		REFERENCE_BYTES: 8 * MB,
		STORE_IMAGE_BYTES: 1 * MB,
		STORE_MISS_PAIRS: quick ? 2 : 4,
		REPEATS_30: quick ? 2 : 3,
		OVERHEAD_RUNS: quick ? { warmup: 1, reps: 5 } : { warmup: 3, reps: 30 },
		// 25 minutes for the in-process scenarios (15–20 on a loaded 2-core machine), 25 more for the real-n8n and package-CPU scenarios on two n8n versions.
		BENCH_DEADLINE_MS: 50 * 60_000,
		TASK_DEADLINE_MS: 330_000,
		MODEL_LATENCIES: [2_000, 10_000, 30_000, 60_000],
		BFL_EXAMPLE_POLLS_PER_SECOND: 2,
		REAL_N8N: { versions: realN8nVersions(asked), runs: realN8n.runs ?? (quick ? 1 : 5), asked },
	};
}

/** `both` (every version of the support matrix), `oldest`, `newest`, an exact version, or `off`. */
export function realN8nVersions(asked: string): string[] {
	if (asked === 'off') return [];
	if (asked === 'both') return N8N_MATRIX.map((entry) => entry.n8n);
	if (asked === 'oldest') return [OLDEST_N8N.n8n];
	if (asked === 'newest') return [NEWEST_N8N.n8n];
	if (N8N_MATRIX.some((entry) => entry.n8n === asked)) return [asked];
	throw new Error(`bench: --real-n8n=${asked} is not one of both, oldest, newest, off, ${N8N_MATRIX.map((entry) => entry.n8n).join(', ')}`);
}

export interface BenchArgs {
	quick: boolean;
	/** `--help`: print the usage and run nothing. */
	help?: boolean;
	/** `--real-n8n=both|oldest|newest|off|<version>` (default both; oldest with --quick). */
	realN8n?: string;
	/** `--real-runs=N` (default 5: the real-cpu rows spread widely from batch to batch; 1 with --quick). */
	realRuns?: number;
}

export const BENCH_USAGE = 'npm run bench [-- --help] [--quick] [--real-n8n=both|oldest|newest|off|<version>] [--real-runs=N]';

/** `npm run bench [-- --quick] [--real-n8n=…] [--real-runs=N]`. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
	const args: BenchArgs = { quick: false };
	const unknown: string[] = [];
	for (const arg of argv) {
		const [name, value] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
		if (name === '--quick' && value === undefined) args.quick = true;
		else if ((name === '--help' || name === '-h') && value === undefined) args.help = true;
		else if (name === '--real-n8n' && value) {
			realN8nVersions(value); // a bad value fails here, naming the allowed ones
			args.realN8n = value;
		} else if (name === '--real-runs' && value !== undefined) {
			const runs = Number(value);
			if (!Number.isInteger(runs) || runs < 1 || runs > 50) throw new Error(`bench: --real-runs=${value} is not an integer from 1 to 50`);
			args.realRuns = runs;
		} else unknown.push(arg);
	}
	if (unknown.length > 0) throw new Error(`bench: unknown argument(s) ${unknown.join(' ')}; usage: ${BENCH_USAGE}`);
	return args;
}

/** `COMFLY_STORE_MAX_MB` from the bench's environment variable `variable` (a whole number of MiB), none when unset. */
export function storeBoundEnv(variable: string): Record<string, string> {
	const value = process.env[variable];
	if (value === undefined || value === '') return {};
	if (!z.string().regex(/^[1-9]\d*$/).safeParse(value).success) throw new Error(`${variable} must be a whole number of MiB (at least 1), got ${value}`);
	return { COMFLY_STORE_MAX_MB: value };
}
