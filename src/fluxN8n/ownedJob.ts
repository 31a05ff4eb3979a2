/* eslint-disable @n8n/community-nodes/require-node-api-error -- runs in the pool, outside any node: the collector or serial node turns errors into node errors. */
/**
 * One paid job, one owner: how a FLUX job (image or video) gets its result through the result store, the journal
 * and the claim on its key. Under Reuse an intact stored result wins at once (its journal record may be missing
 * or damaged). Otherwise the job claims its key (store/claims: the folder, and Redis when configured) before
 * anything is decided or sent, and holds the claim until its outcome is kept. A claimant that waited for another
 * owner takes that owner's outcome: the result it stored meanwhile (whatever the Cache mode: it is the one new job
 * both asked for at the same moment), or its upstream task (re-attached, e.g. from another machine whose folder is
 * not shared, or when the owner could not keep its result: Cache Off, a full disk), or its failure when sending
 * again would fail the same way; it sends only when the owner left nothing
 * (it died before sending, or never sent). Then, by the journal: `submitting` (the submit may have left, nothing
 * came back) fails "maybe paid"; `submitted` re-attaches; otherwise a new job is sent (Refresh: always).
 * A job whose claim was taken over while it ran (it was silent past the lapse: the new owner judged it dead) never
 * sends: right before a body would leave, the claim is checked (submitJournal.ts, CLAIM_LOST); the job then claims
 * the key again, which waits for the new owner, and delivers the new owner's outcome (its stored result, or its
 * failure as a clear error); only when the new owner left nothing does it go on by the rules above.
 */
import { FluxError, isFluxError, type FluxErrorKind } from '../flux';
import { FLUX_ERROR_KINDS } from '../flux/errors';
import { MAYBE_PAID_REASON, type CacheMode, type JournalRecord, type Store } from '../store';

/** What the owned job needs of the image or video job. */
export interface OwnedJobSteps<R> {
	/** The key's stored result, checked (cached: true), or undefined; with `storedSince`, only a result stored at or after it. */
	readStored(storedSince?: number): Promise<R | undefined>;
	/** Polls the journaled upstream task instead of paying again; undefined when the upstream forgot it. */
	reattach(record: JournalRecord): Promise<R | undefined>;
	/** A new, paid job; `attemptsBefore` counts an earlier re-attach. */
	sendNew(attemptsBefore: number): Promise<R>;
}

/** Failures another owner met that this job would meet as well: taken, never sent again. */
const SAME_AGAIN: ReadonlySet<string> = new Set<FluxErrorKind>([
	'request_moderated',
	'content_moderated',
	'generation_error',
	'bad_request',
	'auth',
	'credits',
	'forbidden_host',
	'not_an_image',
	'too_large',
	'invalid_response',
]);

/** The `code` of the error that stops a POST whose claim was taken over: nothing was sent (see the file's comment). */
export const CLAIM_LOST = 'CLAIM_LOST';
/** A job that keeps losing its claim (each time to another owner) gives up after this many claims. */
const CLAIMS_AT_MOST = 3;

/** The `errorKind` of a job delivered but not kept (Cache Off, or the store could not): its task is still upstream. */
export const NOT_KEPT = 'not_kept';

/** A stored result whose image is not in this folder is fetched from its upstream task within this time. */
export const REFETCH_WITHIN_MS = 10 * 60_000;

const sameJob = (a: JournalRecord | undefined, b: JournalRecord) => a !== undefined && a.jobId === b.jobId && a.createdAt === b.createdAt;

/** The key's record changed since `before` into an outcome of another job (stored, or a failure that would repeat). */
function outcomeSince(before: JournalRecord | undefined, now: JournalRecord | undefined): JournalRecord | undefined {
	if (now === undefined) return undefined;
	if (now.state !== 'stored' && now.state !== 'failed') return undefined;
	if (sameJob(before, now) && before?.state === now.state) return undefined; // it was so already when this job asked
	return now;
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

/** What the job does under its claim; `afterLoss`: an earlier claim of it was taken over (it sent nothing). */
async function decide<R>(store: Store, key: string, cacheMode: CacheMode, steps: OwnedJobSteps<R>, asked: { at: number; record?: JournalRecord }, waited: boolean, afterLoss: boolean): Promise<R> {
	if (waited || afterLoss) {
		// The owner this job waited for kept its result: taken even when its journal record cannot be read.
		const kept = await steps.readStored(asked.at);
		if (kept) return kept;
	}
	const { record } = await store.journal.readChecked(key); // a damaged file is noted (report) by the journal
	const outcome = outcomeSince(asked.record, record);
	if (outcome?.state === 'stored') {
		const taken = (await steps.readStored()) ?? (await refetch(outcome, steps, 0));
		if (taken) return taken;
	}
	if (outcome?.state === 'failed' && outcome.errorKind === NOT_KEPT) {
		const taken = await refetch(outcome, steps, 0); // delivered to its owner's slot, not kept: its task is still upstream
		if (taken) return taken;
	}
	if (outcome?.state === 'failed' && outcome.errorKind !== undefined && SAME_AGAIN.has(outcome.errorKind)) {
		throw new FluxError(outcome.errorKind as FluxErrorKind, outcome.reason ?? 'the same job failed in another n8n execution', { taskId: outcome.taskId });
	}
	if (outcome?.state === 'failed' && afterLoss) {
		const kind = FLUX_ERROR_KINDS.find((k) => k === outcome.errorKind) ?? 'upstream_error';
		throw new FluxError(kind, `Another n8n execution took this job over (this one was silent past its claim's lapse) and it failed: ${outcome.reason ?? 'no reason recorded'}. Run it again to send it anew.`, { taskId: outcome.taskId });
	}
	if (cacheMode === 'refresh') return await steps.sendNew(0);
	switch (record?.state) {
		case 'submitting':
			throw new FluxError('maybe_submitted', MAYBE_PAID_REASON, { taskId: record.taskId });
		case 'submitted':
			return (await steps.reattach(record)) ?? (await steps.sendNew(1));
		case 'stored':
			if (cacheMode === 'reuse') return (await steps.readStored()) ?? (await refetch(record, steps, REFETCH_WITHIN_MS)) ?? (await steps.sendNew(1));
			return await steps.sendNew(0);
		default:
			return await steps.sendNew(0);
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
