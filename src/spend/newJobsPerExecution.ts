/**
 * The node option Max New Jobs per Execution: how many new paid jobs each (execution, node) has sent, in this
 * process (an execution runs in one process). A job takes its place right before its submit is sent and gives it
 * back when that submit provably created no task. Bounded: the counts of the oldest executions are forgotten
 * beyond `maxKeys` (a running execution keeps using its count, which moves it to the newest).
 */
export class NewJobsPerExecution {
	private readonly counts = new Map<string, number>();

	constructor(private readonly maxKeys = 10_000) {}

	/** The key of a node in an execution. */
	static keyOf(executionId: string, nodeName: string): string {
		return `${executionId}\u0000${nodeName}`;
	}

	/** Takes a place under `max`: true, or false when `max` places are taken (the count is unchanged). */
	take(key: string, max: number): boolean {
		const used = this.counts.get(key) ?? 0;
		if (used >= max) return false;
		setNewest(this.counts, key, used + 1, this.maxKeys);
		return true;
	}

	/** Gives a place back (its submit created no task). */
	giveBack(key: string): void {
		const used = this.counts.get(key) ?? 0;
		if (used > 0) setNewest(this.counts, key, used - 1, this.maxKeys);
	}
}

/** Sets `key` in `map` as its newest; the oldest leave beyond `max`. */
export function setNewest<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
	map.delete(key);
	map.set(key, value);
	while (map.size > max) map.delete(map.keys().next().value as K);
}
