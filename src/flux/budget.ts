/**
 * The spend hook of a job (`GenerateOptions.budget`): a limit on what the account may spend, kept outside the client
 * (src/spend), and its step, after admission in the submit lifecycle (submitSteps.ts): `beforePost` (optional) before
 * each POST starts, with no connection open yet (the ledger getting back what a restarted Redis forgot); `reserve`
 * right before each submit's body leaves (after the turn and any 429 wait, before the journal): resolves when the job
 * may send, or rejects (a FluxError `budget_exceeded`) to stop it unsent. `unsent`, the refund, when that POST
 * provably created no task (answered 429/4xx, never connected, stopped before its body): the next attempt reserves
 * again. `accepted` with the acknowledgement's cost (credits; undefined when it said none); `ended` once, with the
 * cost the API reported and whether the task reached Ready. A reservation neither given back nor accepted (an
 * ambiguous submit) stays counted.
 */
import type { SubmitStep } from './submitSteps';

export interface SubmitBudget {
	/** Awaited before each submit POST starts (no connection open yet): e.g. the ledger getting back what a restarted store forgot. */
	beforePost?(signal: AbortSignal): Promise<void>;
	reserve(signal: AbortSignal): Promise<void>;
	unsent(): void;
	accepted(cost: number | undefined): void;
	ended(outcome: { cost?: number; ready: boolean }): void;
}

/** The budget step of one job (none without a hook). */
export function budgetStep(budget: SubmitBudget | undefined): SubmitStep | undefined {
	if (!budget) return undefined;
	return {
		...(budget.beforePost ? { beforePost: (signal: AbortSignal) => budget.beforePost!(signal) } : {}),
		beforeSend: (signal) => budget.reserve(signal),
		onUnsent: () => budget.unsent(),
		onAccepted: (_task, cost) => budget.accepted(cost),
		onEnded: (outcome) => budget.ended(outcome),
	};
}
