/** Messages between bench/run.ts (orchestrator, hosts the relay simulators) and bench/worker.ts. */
import type { ThreadSplit } from './procStat';
import type { PollPolicy } from '../src/flux';

export interface SimRef {
	url: string;
	apiKey: string;
}

/** submit → collect executions (each ≤ 30 items), all started at once or one after another. */
export interface NodesBatchTask {
	kind: 'nodesBatch';
	sim: SimRef;
	prefix: string;
	/** Items per execution, e.g. [30] or ten times 30. */
	executions: number[];
	concurrent: boolean;
	/** Sample memory (fresh worker): gc, reset VmHWM, sample every `sampleMs`. */
	memory?: { sampleMs: number };
	/** Every item carries the same binary reference image of this many bytes (one shared base64 string,
	 *  as in n8n's in-memory binary mode) and the submit node sends it as its reference image. */
	referenceImage?: { bytes: number };
	/** The submit node's Options → Cache; default `refresh` (every run a new job, as the other scenarios measure). */
	cache?: 'reuse' | 'refresh' | 'off';
	/** Prompts are `${prefix} ${i}${suffix}` (e.g. an image-size tag the simulator's faults match). */
	suffix?: string;
	/** Measure the event loop's delay (perf_hooks.monitorEventLoopDelay) over the run. */
	loopDelay?: boolean;
	/** `off`: every job runs without its claim (the claim's acquire and release do nothing): the claim's cost, by difference. */
	claims?: 'on' | 'off';
}

/** trigger → FLUX 3 Image (serial node). */
export interface SerialTask {
	kind: 'serial';
	sim: SimRef;
	prefix: string;
	count: number;
	/** Prompts are `${prefix} ${i}${suffix}`. */
	suffix?: string;
}

/** trigger → submit only, repeated; the pool is drained between repetitions. */
export interface SubmitOverheadTask {
	kind: 'submitOverhead';
	sim: SimRef;
	prefix: string;
	count: number;
	warmup: number;
	reps: number;
}

/** generateImage directly on an isolated pool, with a given poll policy. */
export interface DirectTask {
	kind: 'direct';
	sim: SimRef;
	prefix: string;
	count: number;
	concurrency: number;
	poll?: Partial<PollPolicy>;
	/** Prompts are `${prefix} ${i}${suffix}` (e.g. an image-size tag the simulator's faults match). */
	suffix?: string;
	/** false: no poll rate cap (the way other tools poll); default: the package's own cap. */
	pollCap?: boolean;
}

export type WorkerTask = NodesBatchTask | SerialTask | SubmitOverheadTask | DirectTask;

/** One job as the pool saw it (epoch ms). */
export interface JobRecord {
	jobId: string;
	taskId?: string;
	state: string;
	queuedAt: number;
	startedAt?: number;
	finishedAt?: number;
	attempts: number;
	/** Index of the execution (nodesBatch) it belongs to. */
	execution?: number;
}

export interface CpuMs {
	user: number;
	system: number;
}

export interface ExecutionSummary {
	status: string;
	error?: string;
	wallMs: number;
	items: number;
	counts?: Record<string, number>;
	submitExecuteMs?: number;
	/** Slots the collector's report counts as served from the result store. */
	cached?: number;
	/** Each node's run as n8n's engine recorded it (startTime epoch ms, executionTime ms). */
	nodes?: Record<string, { startTime: number; executionTime: number }>;
}

export interface MemorySummary {
	baseline: NodeJS.MemoryUsage;
	/** Peak of the in-process samples, with the other fields at that moment. */
	peakSample: NodeJS.MemoryUsage;
	samples: number;
	/** Max of each field over the samples. */
	maxima: { heapUsed: number; external: number; arrayBuffers: number };
	/** VmHWM (peak RSS, reset just before the run), bytes; undefined off Linux. */
	vmHwm?: number;
	afterRun: NodeJS.MemoryUsage;
	/** After dropping the run's result data and gc (the pool still holds its results). */
	afterDropAndGc: NodeJS.MemoryUsage;
	payloadBytes: number;
	poolRetainedBytes: number;
	/** Sum of base64 string lengths held in output items (in-memory binary mode). */
	base64InItemsBytes: number;
	/** The shared reference image's size (0 without one); it is in the baseline, built before it. */
	referenceBytes: number;
	binaryMode: string;
}

/** perf_hooks.monitorEventLoopDelay over a run (ms). */
export interface LoopDelay {
	maxMs: number;
	p99Ms: number;
	meanMs: number;
}

/** The main thread's part of `cpu` and the other threads' by kind (Linux /proc, to the 10 ms of a tick; absent elsewhere). */
export interface NodesBatchResult extends ThreadSplit {
	kind: 'nodesBatch';
	wallMs: number;
	startedAt: number;
	cpu: CpuMs;
	executions: ExecutionSummary[];
	jobs: JobRecord[];
	memory?: MemorySummary;
	loopDelay?: LoopDelay;
	/** When each status poll left the worker (epoch ms). */
	pollStarts?: number[];
}

export interface SerialResult {
	kind: 'serial';
	wallMs: number;
	cpu: CpuMs;
	status: string;
	error?: string;
	items: number;
	taskIds: string[];
}

export interface SubmitOverheadRep {
	/** The submit node's execute(), timed by a wrapper. */
	executeMs: number;
	/** n8n's own executionTime for the node (integer ms). */
	n8nExecutionTimeMs?: number;
	/** runWorkflow() from call to return (engine overhead + trigger + submit). */
	workflowMs: number;
	/** CPU from the start of the run until every job of the repetition finished. */
	cpu: CpuMs;
	/** process.cpuUsage() over the submit node's execute() alone, ms. */
	executeCpuMs: number;
	jobs: number;
	failed: number;
}

export interface SubmitOverheadResult {
	kind: 'submitOverhead';
	warmup: SubmitOverheadRep[];
	reps: SubmitOverheadRep[];
}

export interface DirectResult {
	kind: 'direct';
	wallMs: number;
	startedAt: number;
	cpu: CpuMs;
	jobs: Array<JobRecord & { polls?: number; downloadMs?: number }>;
}

export type WorkerResult = NodesBatchResult | SerialResult | SubmitOverheadResult | DirectResult;

export type ToWorker = { type: 'run'; id: number; task: WorkerTask } | { type: 'exit' };

export type FromWorker =
	| { type: 'ready'; loadMs: number; pool: { workers: number; pending: number }; binaryMode: string; n8nCore: string }
	| { type: 'result'; id: number; result: WorkerResult }
	| { type: 'error'; id: number; message: string };
