/**
 * The journal of one new FLUX job's submit (image or video), as a step of its submit lifecycle (src/flux
 * submitSteps.ts, after the account lease and the budget): right before each POST's body leaves, the key's claim
 * is checked (one taken over by another owner stops the POST: CLAIM_LOST, nothing sent, nothing journaled; see
 * ownedJob.ts), then `submitting` is written and on disk (synced) before the body goes, so a job that never left
 * is never "maybe paid" after a crash, and one that left is never sent again; a POST answered "not created" (429, 503,
 * never connected) is journaled so at once (the job may wait long before it sends again); the acknowledgement is
 * journaled as `submitted`. Writes go out in order. A failure is journaled by the one rule (journalJobFailure),
 * and only once this job wrote a record: a job that never sent leaves the key's record as it was.
 */
import { FluxError, isFluxError, type FluxTask, type SubmitStep } from '../flux';
import type { JobStart, Store } from '../store';
import { CLAIM_LOST } from './ownedJob';
import { recordAfterFailure } from './paidJobRules';

/** The reason journaled when a POST proved no task was created and the job will send again. */
export const NOT_CREATED_REASON = 'not created upstream (refused with 429/503, or no connection); waiting to send again';

export class SubmitJournal implements SubmitStep {
	private writes: Promise<unknown> = Promise.resolve();
	/** A `submitting` record of this job is in the journal (or its write was attempted). */
	private journaled = false;
	/** A POST went on the wire and was not since proven refused. */
	private posted = false;
	private acknowledged?: Promise<unknown>;

	/** `onAcknowledged` is called once the acknowledgement is being journaled. */
	constructor(
		private readonly store: Store,
		private readonly key: string,
		private readonly start: JobStart,
		private readonly secrets: string[],
		private readonly onAcknowledged: () => void = () => undefined,
	) {}

	async beforeSend(): Promise<void> {
		if (!(await this.store.claims.stillHeld(this.key))) {
			throw new FluxError('cancelled', 'This job\'s claim was taken over by another n8n execution (this one was silent past its lapse): not sent from here', { code: CLAIM_LOST });
		}
		this.journaled = true;
		await this.enqueue(() => this.store.journal.submitting(this.key, this.start));
	}

	onSent(): void {
		this.posted = true;
	}

	onNotCreated(): void {
		this.posted = false;
		// Only over this job's own record (a refused connection before any `submitting` leaves the key's record as it was).
		if (this.journaled) void this.enqueue(() => this.store.journal.failed(this.key, NOT_CREATED_REASON));
	}

	onAccepted(task: FluxTask, cost: number | undefined): void {
		this.acknowledged = this.enqueue(() => this.store.journal.submitted(this.key, { ...task, ...(cost === undefined ? {} : { cost }) }));
		this.onAcknowledged();
	}

	/** Awaits the journal writes made so far (the acknowledgement before the result is kept). */
	async settled(): Promise<void> {
		await this.writes;
	}

	/** Journals a final failure of the job by the one rule (journalJobFailure), once its writes are done. */
	async failed(error: unknown): Promise<void> {
		await this.writes;
		if (!this.journaled) return; // nothing of this job in the journal: the key's record stays as it was
		// Its claim was taken over: the key's record is the new owner's now, never this job's to overwrite.
		if (isFluxError(error) && error.code === CLAIM_LOST) return;
		await journalJobFailure(this.store, this.key, error, { acknowledged: this.acknowledged !== undefined, posted: this.posted }, this.secrets);
	}

	private enqueue(write: () => Promise<unknown>): Promise<unknown> {
		this.writes = this.writes.then(write, write);
		return this.writes;
	}
}

/** Journals a failed FLUX job by the one "never paying twice" rule (paidJobRules.ts `recordAfterFailure`); `secrets` are redacted. */
export async function journalJobFailure(store: Store, key: string, error: unknown, state: { acknowledged: boolean; posted: boolean }, secrets: string[]): Promise<void> {
	const kind = isFluxError(error) ? error.kind : undefined;
	if (recordAfterFailure({ ...state, errorKind: kind }) !== 'failed') return; // stays `submitting` or `submitted`
	await store.journal.failed(key, error instanceof Error ? error.message : String(error), secrets, kind);
}
