/**
 * One goal as the benchmark reports it (PASS / MISS / INFO, with a `why` computed from the run's own numbers).
 * Its own module so that the results, the goal functions and the scenarios share it without importing each other.
 */
export interface Goal {
	id: string;
	goal: string;
	measured: string;
	target: string;
	result: 'PASS' | 'MISS' | 'INFO';
	why?: string;
}

/** A goal this run did not measure (its scenario not asked for this n8n version): a MISS that says so. */
export function notMeasuredGoal(id: string, goal: string, target: string, askedVersions: string): Goal {
	const measured = `not measured in this run (--real-n8n=${askedVersions})`;
	return { id, goal, measured, target, result: 'MISS', why: `${measured}: a goal this run did not measure is not met; run with --real-n8n=both.` };
}
