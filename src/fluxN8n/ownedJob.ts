/* eslint-disable @n8n/community-nodes/require-node-api-error -- runs in the pool, outside any node: the collector or serial node turns errors into node errors. */
/**
 * One paid job, one owner: how a FLUX job (image or video) gets its result through the result store, the journal
 * and the claim on its key. Under Reuse an intact stored result wins at once (its journal record may be missing
 * or damaged). Otherwise the job claims its key (store/claims: the folder, and Redis when configured) before
 * anything is decided or sent, holds the claim until its outcome is kept, and under it carries out the plan of
 * paidJobRules.ts (take another owner's outcome, re-attach, fail "maybe paid", or send). A job whose claim was
 * taken over while it ran (silent past the lapse) never sends: right before a body would leave the claim is checked
 * (submitJournal.ts, CLAIM_LOST: nothing is journaled over the new owner's record); the job then claims the key
 * again, which waits for the new owner, and follows the plan again with `afterLoss`.
 */
import { FluxError, fluxErrorKindOf, isFluxError } from '../flux';
import { MAYBE_PAID_REASON, type CacheMode, type JournalRecord, type Store } from '../store';
import { FINAL_STEPS, paidJobPlan, type PlanStep } from './paidJobRules';

/** What the owned job needs of the image or video job. */
export interface OwnedJobSteps<R> {
	/** The key's stored result, checked (cached: true), or undefined; with `storedSince`, only a result stored at or after it. */
	readStored(storedSince?: number): Promise<R | undefined>;
	/** Polls the journaled upstream task instead of paying again; undefined when the upstream forgot it. */
	reattach(record: JournalRecord): Promise<R | undefined>;
	/** A new, paid job; `attemptsBefore` counts an earlier re-attach. */
	sendNew(attemptsBefore: number): Promise<R>;
}

/** The `code` of the error that stops a POST whose claim was taken over: nothing was sent (see the file's comment). */
export const CLAIM_LOST = 'CLAIM_LOST';
/** A job that keeps losing its claim (each time to another owner) gives up after this many claims. */
const CLAIMS_AT_MOST = 3;

/** A stored result whose image is not in this folder is fetched from its upstream task within this time. */
export const REFETCH_WITHIN_MS = 10 * 60_000;

/** The key's record changed since `before` into an outcome of another job (stored, or a failure that would repeat). */
function outcomeSince(before: JournalRecord | undefined, now: JournalRecord | undefined): boolean {
	if (now?.state !== 'stored' && now?.state !== 'failed') return false;
	// Not when it was so already when this job asked.
	return !(before?.jobId === now.jobId && before.createdAt === now.createdAt && before.state === now.state);
}

/** The result of the job `key` under `cacheMode`, through the store and the claim (see the file's comment); a claim is waited for at most `waitMs` (the job's timeout). */
export async function obtainOwned<R>(store: Store, key: string, cacheMode: CacheMode, signal: AbortSignal, steps: OwnedJobSteps<R>, waitMs?: number): Promise<R> {
	if (cacheMode === 'reuse') {
		const hit = await steps.readStored();
		if (hit) return hit;
	}
	const asked = { at: Date.now(), record: await store.journal.read(key) };
	for (let claims = 1; ; claims++) {
		const claim = await claimKey(store, key, signal, waitMs);
		try {
			return await decide(store, key, cacheMode, steps, asked, claim.waited, claims > 1);
		} catch (error) {
			const lost = isFluxError(error) && error.code === CLAIM_LOST;
			if (!lost || claims >= CLAIMS_AT_MOST) throw error;
		} finally {
			await claim.release();
		}
	}
}

/** What the job does under its claim (paidJobRules.ts's plan, carried out); `afterLoss`: an earlier claim of it was taken over (it sent nothing). */
async function decide<R>(store: Store, key: string, cacheMode: CacheMode, steps: OwnedJobSteps<R>, asked: { at: number; record?: JournalRecord }, waited: boolean, afterLoss: boolean): Promise<R> {
	const { record } = await store.journal.readChecked(key); // a damaged file is noted (report) by the journal
	for (const step of paidJobPlan({ cacheMode, record, outcomeSinceAsked: outcomeSince(asked.record, record), waited, afterLoss })) {
		const result = await carryOut(step, record, steps, asked.at);
		if (result !== undefined || FINAL_STEPS.has(step)) return result as R;
	}
	throw new Error(`the paid-job plan for ${cacheMode} ended without a final step`); // paidJobRules.test.ts: never
}

/** One step of the plan: a result, undefined (look further), or a thrown failure. */
async function carryOut<R>(step: PlanStep, record: JournalRecord | undefined, steps: OwnedJobSteps<R>, askedAt: number): Promise<R | undefined> {
	switch (step) {
		case 'take_stored_since_asked':
			return await steps.readStored(askedAt); // the owner this job waited for kept its result (even with its record unreadable)
		case 'take_stored':
			return await steps.readStored();
		case 'refetch_outcome':
			return await refetch(record!, steps, 0);
		case 'refetch_recent':
			return await refetch(record!, steps, REFETCH_WITHIN_MS);
		case 'reattach':
			return await steps.reattach(record!);
		case 'fail_as_outcome':
			throw new FluxError(fluxErrorKindOf(record?.errorKind)!, record?.reason ?? 'the same job failed in another n8n execution', { taskId: record?.taskId });
		case 'fail_taken_over':
			throw new FluxError(fluxErrorKindOf(record?.errorKind) ?? 'upstream_error', `Another n8n execution took this job over (this one was silent past its claim's lapse) and it failed: ${record?.reason ?? 'no reason recorded'}. Run it again to send it anew.`, { taskId: record?.taskId });
		case 'fail_maybe_paid':
			throw new FluxError('maybe_submitted', MAYBE_PAID_REASON, { taskId: record?.taskId });
		case 'send_new':
			return await steps.sendNew(0);
		case 'send_again':
			return await steps.sendNew(1);
	}
}

/**
 * The key's claim. A job cancelled while it waits for another owner ends cancelled; one that waited longer than
 * `waitMs` (the job's timeout: the owner is stalled, or Redis stopped answering while an owner elsewhere held
 * it) ends as a timeout. Either way nothing was sent.
 */
async function claimKey(store: Store, key: string, signal: AbortSignal, waitMs?: number) {
	const limit = waitMs === undefined ? signal : AbortSignal.any([signal, AbortSignal.timeout(waitMs)]);
	try {
		return await store.claims.acquire(key, limit);
	} catch (error) {
		if (signal.aborted) throw new FluxError('cancelled', 'FLUX job cancelled before it was submitted (while another execution ran the same job)');
		if (limit.aborted) {
			throw new FluxError('timeout', `Another n8n execution ran this same job (one key, one owner) for longer than the job timeout (${Math.round((waitMs ?? 0) / 1000)} s); it was not sent from here. Run it again to take its result.`);
		}
		throw error;
	}
}

/**
 * A stored result this folder does not have (another machine's folder, or evicted here): its upstream task,
 * re-attached while the upstream still serves it (`withinMs` of the record; 0: any age). Undefined when that
 * fails (a failure other than a cancellation sends a new job instead).
 */
async function refetch<R>(record: JournalRecord, steps: OwnedJobSteps<R>, withinMs: number): Promise<R | undefined> {
	if (record.taskId === undefined) return undefined;
	if (withinMs > 0 && Date.now() - record.updatedAt > withinMs) return undefined;
	try {
		return await steps.reattach({ ...record, state: 'submitted' });
	} catch (error) {
		if (isFluxError(error) && error.kind === 'cancelled') throw error;
		return undefined;
	}
}
