/**
 * The admission hook of a job (`GenerateOptions.admission`): an account-wide limit on tasks active
 * upstream, kept outside the client (e.g. src/accountLimit), and its step in the submit lifecycle
 * (submitSteps.ts, first). The client calls, in order:
 * `acquire` before each submit POST (waits for its turn; rejects when the job is aborted), unless the job
 * holds a turn already; `rateLimited` when that submit is answered 429 (no task was created): the turn goes
 * back. Answering true: one of the account's own tasks will finish, the job acquires again (waits its turn)
 * and resubmits, not counted as a retry (for as long as its timeout allows). Answering false: nothing of ours
 * to wait for, the 429 goes through the submit retry policy as without a hook (Retry-After, bounded attempts),
 * then acquires. `accepted` once the submit is acknowledged (the task is active upstream),
 * `release('ready')` when a poll sees the task Ready (the download is not upstream-active), and
 * `release('ended')` whenever the job ends otherwise (any failure, cancel, timeout). Calls after the
 * first release are no-ops for the hook to ignore. Exceptions the hook throws from `accepted`,
 * `rateLimited` and `release` are ignored.
 */
import type { SubmitStep } from './submitSteps';

/** How a job's task ended, for the limit: `ready` is a clean completion. */
export type AdmissionOutcome = 'ready' | 'failed' | 'ended';

export interface SubmitAdmission {
	acquire(signal: AbortSignal): Promise<void>;
	accepted(): void;
	/** `headers`: the 429's response headers (Retry-After, X-RateLimit-*). */
	rateLimited(headers: Readonly<Record<string, string | string[] | undefined>>): boolean;
	release(outcome: AdmissionOutcome): void;
}

/** The admission step of one job (none without a hook). */
export function admissionStep(admission: SubmitAdmission | undefined): SubmitStep | undefined {
	if (!admission) return undefined;
	let turn = false; // between acquire and a 429 (or a release)
	return {
		beforePost: async (signal) => {
			if (turn) return;
			await admission.acquire(signal);
			turn = true;
		},
		onRateLimited: (headers) => ((turn = false), admission.rateLimited(headers)),
		onAccepted: () => admission.accepted(),
		onReady: () => admission.release('ready'),
		onEnded: () => admission.release('ended'),
	};
}
