/**
 * The admission hook of a job (`GenerateOptions.admission`): an account-wide limit on tasks active upstream, kept
 * outside the client (e.g. src/accountLimit), and its step, first in the submit lifecycle (submitSteps.ts):
 * `acquire` before each submit POST starts (waits for a turn; rejects when the job is aborted) unless the job holds
 * one; `rateLimited` when the POST is answered 429 (no task): the turn goes back; true: one of the account's own
 * tasks will finish, the job waits for a turn again and resubmits, not counted as a retry (while its timeout allows);
 * false: the 429 goes through the submit retry policy (Retry-After, bounded attempts). `accepted` once the submit is
 * acknowledged, `release('ready')` when a poll sees the task Ready (the download is not upstream-active),
 * `release('ended')` when the job ends (calls after the first release are no-ops for the hook to ignore).
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
