/**
 * What the per-account poll rate cap alone allows (goals 1a, 1c, 1d): every job needs one poll after its task is
 * Ready, and no window of 1 s (+ the cap's guard) holds more than `rate` polls. So when more than `rate` jobs become
 * Ready close together, the (rate + 1)-th poll after the first Ready comes at least 1 s after that Ready: a batch of
 * N > rate jobs cannot be collected before its first job's Ready + 1 s, however the polls are scheduled.
 */
import { GUARD_MS } from '../src/flux/pollRate';
import type { JoinedJob } from './jobs';
import { fixed, s } from './format';

/** The earliest a batch can end under the cap (epoch ms), or undefined when it has no more jobs than the rate. */
export function capBoundEnd(jobs: readonly JoinedJob[], rate: number): number | undefined {
	if (jobs.length <= rate) return undefined;
	const firstReady = Math.min(...jobs.map((j) => j.readyMs ?? Infinity));
	return Number.isFinite(firstReady) ? firstReady + 1000 + GUARD_MS : undefined;
}

/** One sentence on the cap's bound of one batch that started at `startedAt` (epoch ms) and whose ideal is `idealMs`. */
export function capBoundText(jobs: readonly JoinedJob[], startedAt: number, idealMs: number, rate: number): string {
	const end = capBoundEnd(jobs, rate);
	if (end === undefined) return '';
	return (
		`The poll rate cap (${rate}/s per account) bounds this batch whatever the schedule: ${jobs.length} jobs need one poll each after their Ready, ` +
		`and no second holds more than ${rate}, so the last of them comes ≥ 1 s after the first Ready: the run cannot end before ${s(end - startedAt)} ` +
		`(efficiency ≤ ${fixed(idealMs / (end - startedAt))}); a raised COMFLY_POLL_RATE lifts the bound (bench/capModel.ts models both).`
	);
}
