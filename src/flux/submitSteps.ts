/**
 * One submit's lifecycle as one ordered list of small steps (as undici's interceptors compose a dispatch): each step
 * sees the job's submit events and may act on them, or stop the submit before its body leaves. `submitSteps` is the
 * list, read top to bottom; `SubmitLifecycle` runs each event through it in that order, skipping a step that lacks
 * it. Observers' exceptions are ignored; a rejecting `beforePost` or `beforeSend` fails the job with that error.
 */
import { admissionStep, type SubmitAdmission } from './admission';
import { budgetStep, type SubmitBudget } from './budget';
import type { JobRuntime } from './job';
import type { FluxTask } from './submit';

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
	/** The refund: the POST provably created no task (refused, never connected, stopped before its body); after `onNotCreated`. */
	onUnsent?(): void;
	/** Answered 429; true when the job is to wait for another turn (not a retry). */
	onRateLimited?(headers: Readonly<Record<string, string | string[] | undefined>>): boolean;
	/** The submit was acknowledged: its task, and the cost the answer carried. */
	onAccepted?(task: FluxTask, cost: number | undefined): void;
	/** A poll saw the task Ready (the download is not upstream-active). */
	onReady?(): void;
	/** The job ended, however it ended: the cost the API reported, and whether the task reached Ready. */
	onEnded?(outcome: { cost?: number; ready: boolean }): void;
}

/** What a job's steps are built from (GenerateOptions). */
export interface SubmitStepOptions {
	/** An account-wide limit on active upstream tasks: acquired before submitting, released when the task is final. */
	admission?: SubmitAdmission;
	/** A spend limit: reserved right before each submit's body leaves, given back when it provably created no task. */
	budget?: SubmitBudget;
	/** The caller's own steps, after the budget: e.g. a durable job journal (src/fluxN8n/submitJournal.ts). */
	steps?: readonly SubmitStep[];
}

/** The lifecycle's steps, in the order every event runs through them: the order of the paid-job side effects. */
export function submitSteps(opts: SubmitStepOptions): SubmitStep[] {
	const steps = [
		// 1. Account admission (admission.ts): a turn before each POST starts; a 429 gives it back; released on Ready or at the end.
		admissionStep(opts.admission),
		// 2. Budget (budget.ts): reserved right before the body leaves; refunded when the POST provably created no task; accepted; ended.
		budgetStep(opts.budget),
		// 3. The caller's: the journal (src/fluxN8n/submitJournal.ts): claim checked, `submitting` on disk; not created; submitted.
		...(opts.steps ?? []),
		// 4. Body (submit.ts `post`): held back while a step above has a `beforeSend`; leaves once they all said go.
		// 5. Acknowledgement (submit.ts `parseAcknowledgement`): the answer's task id and cost; then `onAccepted` runs down this list.
	];
	return steps.filter((step): step is SubmitStep => step !== undefined);
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

	/** Each step's turn before the POST starts (the job's abort error when it is aborted meanwhile, also when a step resolved anyway). */
	async beforePost(): Promise<void> {
		for (const step of this.steps) if (step.beforePost) await this.rt.unlessAborted(() => step.beforePost!(this.rt.signal));
		this.rt.throwIfAborted();
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
