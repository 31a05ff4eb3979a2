/**
 * The paid-job rules as one pure state machine ("never pay twice"): from what a job knows under its key's claim
 * (the journal's record, whether it changed into another job's outcome since this job asked, whether this job waited
 * for another owner or lost an earlier claim, the Cache mode) to the ordered steps it tries (`paidJobPlan`); and
 * from how a job failed to what the journal keeps (`recordAfterFailure`). ownedJob.ts carries the steps out,
 * submitJournal.ts writes the record; test/fluxN8n/paidJobRules.test.ts holds the whole table.
 */
import { errorClassOf } from '../flux';
import type { CacheMode, JournalRecord } from '../store';

/** The `errorKind` of a job delivered but not kept (Cache Off, or the store could not): its task is still upstream. */
export const NOT_KEPT = 'not_kept';

/**
 * One step of a plan. Steps that look for a result go on to the next step when they find none; the others end it.
 * - `take_stored_since_asked`: the result another owner stored since this job asked for it;
 * - `take_stored`: the key's stored result;
 * - `refetch_outcome`: the upstream task of another job's outcome (its result is not in this folder), any age;
 * - `refetch_recent`: the upstream task of the stored record, only while the upstream still serves it;
 * - `reattach`: poll the journaled upstream task of an acknowledged submit;
 * - `fail_as_outcome`: fail as the other job did (sending again would fail the same way);
 * - `fail_taken_over`: this job's claim was taken over, and the new owner failed;
 * - `fail_maybe_paid`: the journal says `submitting`: the body may have left, never resend blindly;
 * - `send_new`: a new, paid job; `send_again`: a new job after a stored or re-attached one could not be had.
 */
export type PlanStep =
	| 'take_stored_since_asked'
	| 'take_stored'
	| 'refetch_outcome'
	| 'refetch_recent'
	| 'reattach'
	| 'fail_as_outcome'
	| 'fail_taken_over'
	| 'fail_maybe_paid'
	| 'send_new'
	| 'send_again';

/** The steps that end a plan: a failure, or a send (which always yields a result or fails). */
export const FINAL_STEPS: ReadonlySet<PlanStep> = new Set(['fail_as_outcome', 'fail_taken_over', 'fail_maybe_paid', 'send_new', 'send_again']);

export interface PaidJobFacts {
	cacheMode: CacheMode;
	/** The key's latest journal record under the claim (undefined: none, or unreadable). */
	record?: Pick<JournalRecord, 'state' | 'errorKind'>;
	/** That record is another job's outcome (stored or failed) that was not so yet when this job asked. */
	outcomeSinceAsked: boolean;
	/** This job waited for another owner of its claim. */
	waited: boolean;
	/** An earlier claim of this job was taken over (it sent nothing). */
	afterLoss: boolean;
}

/** What the job tries, in order, under its claim (ownedJob.ts's file comment says it in words). */
export function paidJobPlan(facts: PaidJobFacts): PlanStep[] {
	const { cacheMode, record, outcomeSinceAsked, waited, afterLoss } = facts;
	const steps: PlanStep[] = waited || afterLoss ? ['take_stored_since_asked'] : [];
	if (outcomeSinceAsked && record?.state === 'stored') steps.push('take_stored', 'refetch_outcome');
	if (outcomeSinceAsked && record?.state === 'failed') {
		if (record.errorKind === NOT_KEPT) steps.push('refetch_outcome'); // delivered to its owner's slot, not kept: its task is still upstream
		if (errorClassOf(record.errorKind).repeats) return [...steps, 'fail_as_outcome'];
		if (afterLoss) return [...steps, 'fail_taken_over'];
	}
	if (cacheMode === 'refresh') return [...steps, 'send_new'];
	switch (record?.state) {
		case 'submitting':
			return [...steps, 'fail_maybe_paid'];
		case 'submitted':
			return [...steps, 'reattach', 'send_again'];
		case 'stored':
			return cacheMode === 'reuse' ? [...steps, 'take_stored', 'refetch_recent', 'send_again'] : [...steps, 'send_new'];
		default:
			return [...steps, 'send_new'];
	}
}

/** What the journal keeps after a job of this process failed: `submitting` (maybe paid), `submitted` (re-attachable), or the failure. */
export type RecordAfterFailure = 'keep_submitting' | 'keep_submitted' | 'failed';

/**
 * The one "never paying twice" rule for a failed job's record. `acknowledged`: its submit was acknowledged;
 * `posted`: a submit POST was started and not since proven refused (429/503 or never connected); `errorKind`: the
 * failure's kind (undefined: not a FluxError).
 */
export function recordAfterFailure(failure: { acknowledged: boolean; posted: boolean; errorKind?: string }): RecordAfterFailure {
	const { taskMayFinish, postMayHaveLeft } = errorClassOf(failure.errorKind);
	if (!failure.acknowledged && failure.posted && postMayHaveLeft) return 'keep_submitting';
	if (failure.acknowledged && taskMayFinish) return 'keep_submitted';
	return 'failed';
}
