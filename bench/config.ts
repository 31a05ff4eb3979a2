/** The benchmark's configuration: pool width, latency, image size and bounds; `--quick` shrinks every scenario. */
export const MB = 1024 * 1024;

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
}

export function benchConfig(quick: boolean): BenchConfig {
	const scale = quick ? 0.1 : 1;
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
		BENCH_DEADLINE_MS: 35 * 60_000,
		TASK_DEADLINE_MS: 330_000,
		MODEL_LATENCIES: [2_000, 10_000, 30_000, 60_000],
		BFL_EXAMPLE_POLLS_PER_SECOND: 2,
	};
}

/** `npm run bench [-- --quick]`. */
export function parseBenchArgs(argv: readonly string[]): { quick: boolean } {
	const unknown = argv.filter((arg) => arg !== '--quick');
	if (unknown.length > 0) throw new Error(`bench: unknown argument(s) ${unknown.join(' ')}; usage: npm run bench [-- --quick]`);
	return { quick: argv.includes('--quick') };
}
