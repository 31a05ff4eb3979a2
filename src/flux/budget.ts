/**
 * The spend hook of a job (`GenerateOptions.budget`): a limit on what the account may spend, kept outside the
 * client (src/spend). The client calls, in order: `reserve` right before each submit POST goes on the wire
 * (after the job's admission turn and any 429 wait, before `beforeSend`): it resolves when the job may send, or
 * rejects (a FluxError `budget_exceeded`) to stop the submit unsent. `unsent` when that POST provably created no
 * task (answered 429/503/4xx, never connected, or stopped before it was sent, also by `beforeSend` or a cancel):
 * the reservation goes back, and the next attempt reserves again. `accepted` once the submit is acknowledged, with
 * the `cost` the answer carried (credits; undefined when it said nothing). `ended` once, when the job ends however
 * it ends, with the cost the API reported (the submit answer's, else the finished poll's) and whether the task
 * reached Ready. A reservation that was neither given back nor accepted (an ambiguous submit) stays counted.
 * Exceptions the hook throws from `unsent`, `accepted` and `ended` are ignored.
 */
export interface SubmitBudget {
	reserve(signal: AbortSignal): Promise<void>;
	unsent(): void;
	accepted(cost: number | undefined): void;
	ended(outcome: { cost?: number; ready: boolean }): void;
}
