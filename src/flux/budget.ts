/**
 * The spend hook of a job (`GenerateOptions.budget`): a limit on what the account may spend, kept outside the
 * client (src/spend), and its step in the submit lifecycle (submitSteps.ts, after admission). The client calls, in
 * order: `reserve` right before each submit POST's body goes on the wire (after the job's admission turn and any
 * 429 wait, before the journal's `beforeSend`): it resolves when the job may send, or rejects (a FluxError
 * `budget_exceeded`) to stop the submit unsent. `unsent` (the refund) when that POST provably created no task
 * (answered 429/4xx, never connected, or stopped before it was sent, also by a later step or a cancel): the
 * reservation goes back, and the next attempt reserves again. `accepted` once the submit is acknowledged, with
 * the `cost` the answer carried (credits; undefined when it said nothing). `ended` once, when the job ends however
 * it ends, with the cost the API reported (the submit answer's, else the finished poll's) and whether the task
 * reached Ready. A reservation that was neither given back nor accepted (an ambiguous submit) stays counted.
 * Exceptions the hook throws from `unsent`, `accepted` and `ended` are ignored.
 */
import type { SubmitStep } from './submitSteps';

export interface SubmitBudget {
	reserve(signal: AbortSignal): Promise<void>;
	unsent(): void;
	accepted(cost: number | undefined): void;
	ended(outcome: { cost?: number; ready: boolean }): void;
}

/** The budget step of one job (none without a hook). */
export function budgetStep(budget: SubmitBudget | undefined): SubmitStep | undefined {
	if (!budget) return undefined;
	return {
		beforeSend: (signal) => budget.reserve(signal),
		onUnsent: () => budget.unsent(),
		onAccepted: (_task, cost) => budget.accepted(cost),
		onEnded: (outcome) => budget.ended(outcome),
	};
}
