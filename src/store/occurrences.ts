/**
 * Which occurrence of an identical request a job is, counted per n8n execution: the n-th identical request of
 * an execution (in execution order, across every node and every run of a node, e.g. the batches of Loop Over
 * Items) is occurrence n, so thirty identical rows are thirty jobs however they arrive, and a re-run (a new
 * execution) counts from 0 again and finds the same thirty, slot for slot. Executions end without telling the
 * nodes: an execution's counts are forgotten once it has asked for nothing for `idleMs`, and at most
 * `maxExecutions` executions are remembered (the least recently active goes first). Knows nothing of n8n.
 */

/** An execution idle this long is forgotten: longer than the longest job (24 h) a collector may wait for, plus an hour. */
export const OCCURRENCE_IDLE_MS = 25 * 60 * 60 * 1000;
/** At most this many executions are remembered at once (a few hundred bytes each). */
export const OCCURRENCE_MAX_EXECUTIONS = 10_000;
/** The counts are keyed by this many hex characters of the request's digest (128 bits). */
const KEY_CHARS = 32;

export interface ExecutionOccurrencesOptions {
	idleMs?: number;
	maxExecutions?: number;
	now?: () => number;
}

export class ExecutionOccurrences {
	/** Least recently active first (a Map keeps insertion order; a use re-inserts). */
	private readonly executions = new Map<string, { counts: Map<string, number>; lastUsed: number }>();
	private readonly idleMs: number;
	private readonly maxExecutions: number;
	private readonly now: () => number;

	constructor(options: ExecutionOccurrencesOptions = {}) {
		this.idleMs = options.idleMs ?? OCCURRENCE_IDLE_MS;
		this.maxExecutions = Math.max(1, options.maxExecutions ?? OCCURRENCE_MAX_EXECUTIONS);
		this.now = options.now ?? Date.now;
	}

	/** The occurrence (0, 1, 2, …) of the request `digest` in the execution `executionId`; counts it. */
	next(executionId: string, digest: string): number {
		const now = this.now();
		this.forgetIdle(now);
		const execution = this.executions.get(executionId) ?? { counts: new Map<string, number>(), lastUsed: now };
		this.executions.delete(executionId); // re-inserted last: the most recently active
		execution.lastUsed = now;
		this.executions.set(executionId, execution);
		const key = digest.slice(0, KEY_CHARS);
		const occurrence = execution.counts.get(key) ?? 0;
		execution.counts.set(key, occurrence + 1);
		while (this.executions.size > this.maxExecutions) this.executions.delete(this.executions.keys().next().value as string);
		return occurrence;
	}

	/** How many executions are remembered (tests). */
	get size(): number {
		return this.executions.size;
	}

	private forgetIdle(now: number): void {
		for (const [id, execution] of this.executions) {
			if (now - execution.lastUsed < this.idleMs) return; // the rest were active more recently
			this.executions.delete(id);
		}
	}
}
