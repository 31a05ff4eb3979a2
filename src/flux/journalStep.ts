/**
 * The caller's observers of a submit (`GenerateOptions`' SubmitHooks: a durable job journal, src/fluxN8n
 * submitJournal.ts) as the journal step of the submit lifecycle (submitSteps.ts, after the budget). Exceptions the
 * observers throw are ignored; a `beforeSend` that rejects stops the body.
 */
import type { SubmitStep } from './submitSteps';
import type { FluxTask } from './submit';

/** Observers of a submit (e.g. a durable job journal). */
export interface SubmitHooks {
	/**
	 * Awaited right before every submit's body goes on the wire, after the job's turn (its account admission and any
	 * 429 wait) and its budget's reservation, with the request's connection already open (only its headers sent):
	 * where a write-ahead journal records `submitting`. Rejecting stops the submit before its body: the job fails
	 * with that error (a FluxError as is; no task can have been created).
	 */
	beforeSend?: () => Promise<void>;
	/** Called right before every submit POST goes on the wire (from then on the job may exist upstream). */
	onSubmitting?: () => void;
	/** Called once the submit is acknowledged with a task id (and the answer's cost, when it carried one). */
	onSubmitted?: (task: FluxTask) => void;
	/** Called when a POST's answer proves no task was created and the submit will wait and try again (429, 503, connection refused). */
	onNotCreated?: () => void;
}

/** The journal step of one job: the hooks it was given (none without any). */
export function journalStep({ beforeSend, onSubmitting, onSubmitted, onNotCreated }: SubmitHooks): SubmitStep | undefined {
	if (!beforeSend && !onSubmitting && !onSubmitted && !onNotCreated) return undefined;
	return {
		...(beforeSend ? { beforeSend: () => beforeSend() } : {}),
		onSent: () => onSubmitting?.(),
		onNotCreated: () => onNotCreated?.(),
		onAccepted: (task, cost) => onSubmitted?.({ ...task, ...(cost === undefined ? {} : { cost }) }),
	};
}
