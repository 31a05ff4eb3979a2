/**
 * One submit's lifecycle as one ordered list of small steps (as undici's interceptors compose a dispatch): each step
 * sees the job's submit events and may act on them, or stop the submit before its body leaves. `submitSteps` is the
 * list, read top to bottom; `SubmitLifecycle` runs each event through it in that order (a step that lacks the event
 * is skipped). The order is the order of side effects the paid-job rules rest on:
 *   1. account admission (admission.ts): a turn before each POST starts; a 429 gives it back; released when the
 *      task is Ready, or when the job ends.
 *   2. budget (budget.ts): the reservation right before the body leaves (after the turn and any 429 wait); given
 *      back (refund) when the POST provably created no task; `accepted` with the answer's cost; `ended`.
 *   3. journal (journalStep.ts, the caller's SubmitHooks): `submitting` before the body leaves (a claim lost stops
 *      it unsent), `not created`, `submitted`.
 *   4. body (submit.ts `post`): held back while any step has a `beforeSend`, released once they all said go.
 *   5. acknowledgement (acknowledgement.ts): the answer's task id and cost, then `onAccepted` runs down the list.
 * The POST is provably not created (answered 429/503, never connected): `onNotCreated`, then `onUnsent` where the
 * answer also proves nothing was charged. Observers' exceptions are ignored; a rejecting `beforePost` or
 * `beforeSend` fails the job with that error, and a `beforeSend` that rejects after an earlier step said go sends
 * `onUnsent` down the list (nothing left).
 */
import { admissionStep, type SubmitAdmission } from './admission';
import { budgetStep, type SubmitBudget } from './budget';
import type { JobRuntime } from './job';
import { journalStep, type SubmitHooks } from './journalStep';
import type { FluxTask } from './submit';

/** How a job ended, as the steps learn it: the cost the API reported and whether the task reached Ready. */
export interface JobOutcome {
	cost?: number;
	ready: boolean;
}

/** One step of the lifecycle: the events it sees (all optional). */
export interface SubmitStep {
	/** Awaited before each submit POST starts (its turn); rejecting stops the submit. */
	beforePost?(signal: AbortSignal): Promise<void>;
	/** Awaited with the POST's connection open and its body held back; rejecting stops the body (nothing sent). */
	beforeSend?(signal: AbortSignal): Promise<void>;
	/** The body left: from now on the task may exist upstream. */
	onSent?(): void;
	/** An answer proved no task was created and the job will send again (429, 503, never connected). */
	onNotCreated?(): void;
	/** The POST provably created no task and cost nothing (refused, never connected, stopped before its body). */
	onUnsent?(): void;
	/** Answered 429; true when the job is to wait for another turn (not a retry). */
	onRateLimited?(headers: Readonly<Record<string, string | string[] | undefined>>): boolean;
	/** The submit was acknowledged: its task, and the cost the answer carried. */
	onAccepted?(task: FluxTask, cost: number | undefined): void;
	/** A poll saw the task Ready (the download is not upstream-active). */
	onReady?(): void;
	/** The job ended, however it ended. */
	onEnded?(outcome: JobOutcome): void;
}

/** What a job's steps are built from (GenerateOptions). */
export interface SubmitStepOptions extends SubmitHooks {
	/** An account-wide limit on active upstream tasks: acquired before submitting, released when the task is final. */
	admission?: SubmitAdmission;
	/** A spend limit: reserved right before each submit's body leaves, given back when it provably created no task. */
	budget?: SubmitBudget;
}

/** The lifecycle's steps, in order (see the file's comment). */
export function submitSteps(opts: SubmitStepOptions): SubmitStep[] {
	return [admissionStep(opts.admission), budgetStep(opts.budget), journalStep(opts)].filter((step): step is SubmitStep => step !== undefined);
}

type Observer = Exclude<keyof SubmitStep, 'beforePost' | 'beforeSend' | 'onRateLimited'>;

/** Runs one job's events through its steps, in order. */
export class SubmitLifecycle {
	constructor(
		private readonly rt: JobRuntime,
		readonly steps: readonly SubmitStep[],
	) {}

	/** True when a step acts before the body leaves: the body is held back until they said go. */
	get holdsBody(): boolean {
		return this.steps.some((step) => step.beforeSend !== undefined);
	}

	/** Each step's turn before the POST starts (the job's abort error when it is aborted meanwhile). */
	async beforePost(): Promise<void> {
		const rt = this.rt;
		for (const step of this.steps) if (step.beforePost) await rt.unlessAborted(() => step.beforePost!(rt.signal));
	}

	/** Each step's go before the body leaves; once one said go, a stop (a rejection, a cancel) sends `onUnsent`. */
	async beforeSend(): Promise<void> {
		const rt = this.rt;
		let said = false;
		try {
			for (const step of this.steps) {
				if (!step.beforeSend) continue;
				// A job cancelled while a step ran stops as cancelled, whatever the step did.
				await rt.unlessAborted(() => step.beforeSend!(rt.signal));
				said = true;
			}
			rt.throwIfAborted();
		} catch (err) {
			if (said) this.tell('onUnsent');
			throw err;
		}
	}

	/** A 429: each step hears it; true when one of them has the job wait for another turn. */
	rateLimited(headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
		let wait = false;
		for (const step of this.steps) this.rt.notify(() => (wait = step.onRateLimited?.(headers) === true || wait));
		return wait;
	}

	/** Tells every step the event, in order. */
	tell<E extends Observer>(event: E, ...args: Parameters<NonNullable<SubmitStep[E]>>): void {
		for (const step of this.steps) this.rt.notify(() => (step[event] as ((...a: typeof args) => void) | undefined)?.call(step, ...args));
	}
}
