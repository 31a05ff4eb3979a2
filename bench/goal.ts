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
