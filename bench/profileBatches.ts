/**
 * The batches the profiles run (bench/cpuProfile.ts, bench/heapProfile.ts), in one place so they stay the same: 30
 * image jobs of 1.5–3.5 s at one size, on a seeded simulator, through the engine bench's worker (filesystem binary
 * mode) or a real n8n's webhook workflow (Cache Refresh), each batch checked to have succeeded whole.
 */
import { checkBatch } from './jobs';
import { log } from './format';
import type { NodesBatchResult } from './protocol';
import { openRealN8n, type RealN8nExecution, type RealN8nSession } from './realN8nSession';
import { sizeSuffix, startSizedSim, type SizedSim, type SizeTag } from './sizedSim';
import { startWorker, type Worker } from './workerProcess';

export const PROFILE_BATCH = 30;
const SIZES: readonly SizeTag[] = ['1m', '4m', '16m'];

/**
 * A profile's `--name=value` arguments: the returned function reads one (undefined when absent); an argument whose
 * name is not among `known` is refused, naming `script`.
 */
export function argReader(argv: readonly string[], known: readonly string[], script: string): (name: string) => string | undefined {
	const unknown = argv.filter((arg) => !known.some((name) => arg.startsWith(`--${name}=`)));
	if (unknown.length > 0) throw new Error(`${script}: unknown argument(s) ${unknown.join(' ')}`);
	return (name) => argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
}

/** `--batches` and `--size` of a profile's command line (`value` reads `--name=`), checked. */
export function parseBatchArgs(value: (name: string) => string | undefined): { batches: number; size: SizeTag } {
	const batches = Number(value('batches') ?? 3);
	if (!Number.isInteger(batches) || batches < 1) throw new Error(`--batches must be a whole number ≥ 1, got ${value('batches')}`);
	const size = (value('size') ?? '1m') as SizeTag;
	if (!SIZES.includes(size)) throw new Error(`--size must be 1m, 4m or 16m, got ${size}`);
	return { batches, size };
}

/** The profiles' simulator: latencies 1.5–3.5 s, seeded by prompt. */
export const startProfileSim = (): Promise<SizedSim> => startSizedSim({ min: 1500, max: 3500 }, 'short');

/** An engine worker for the batches, its Node started with `nodeArgs` (a profiler's flags). */
export async function startProfiledWorker(label: string, nodeArgs: string): Promise<Worker> {
	const previous = process.env.BENCH_WORKER_NODE_ARGS;
	process.env.BENCH_WORKER_NODE_ARGS = nodeArgs;
	try {
		return await startWorker(label, { COMFLY_IMAGE_CONCURRENCY: String(PROFILE_BATCH), BENCH_BINARY_MODE: 'filesystem' }, { deadline: Date.now() + 3_600_000, taskDeadlineMs: 600_000 });
	} finally {
		if (previous === undefined) delete process.env.BENCH_WORKER_NODE_ARGS;
		else process.env.BENCH_WORKER_NODE_ARGS = previous;
	}
}

/** One batch through the worker; every job must succeed. */
export async function runEngineBatch(worker: Worker, sized: SizedSim, prefix: string, size: SizeTag, cache: 'refresh' | 'off' = 'refresh'): Promise<NodesBatchResult> {
	const { result } = await worker.run<NodesBatchResult>({ kind: 'nodesBatch', sim: sized.ref, prefix, suffix: sizeSuffix(size), executions: [PROFILE_BATCH], concurrent: false, cache });
	checkBatch(`engine ${prefix}`, result, PROFILE_BATCH);
	return result;
}

/** A real `n8n start` of `version` with the batch's workflow on `sized`, its Node started with `nodeArgs`, `env` added to its environment. */
export async function openProfiledN8n(version: string, sized: SizedSim, nodeArgs: readonly string[], env: Record<string, string> = {}): Promise<RealN8nSession> {
	return await openRealN8n(version, [{ key: 'short', url: sized.ref.url, apiKey: sized.ref.apiKey }], (line) => log(`  [n8n ${version}] ${line}`), { nodeArgs, env });
}

/** One batch through the n8n workflow; every slot must succeed. */
export async function fireN8nBatch(session: RealN8nSession, prefix: string, size: SizeTag): Promise<RealN8nExecution> {
	const execution = await session.fire('short', Array.from({ length: PROFILE_BATCH }, (_, i) => `${prefix} ${i}${sizeSuffix(size)}`));
	const failed = execution.slots.filter((slot) => slot.status !== 'success').length;
	if (failed > 0) throw new Error(`n8n ${session.version}: ${failed} slot(s) did not succeed`);
	return execution;
}
