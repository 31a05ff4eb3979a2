/**
 * The one "never paying twice" rule for a failed FLUX job (image or video), as the journal records it: a failure
 * after which the upstream task may still finish keeps the job re-attachable (`submitted`), one after a POST that
 * was never acknowledged keeps it `submitting` (maybe paid); any other failure is journaled as failed.
 */
import { isFluxError } from '../flux';
import type { Store } from '../store';

/** Failures after which the upstream task may still finish: the journal stays `submitted`, a re-run re-attaches. */
const REATTACHABLE_KINDS = new Set(['timeout', 'cancelled', 'network', 'download_failed', 'upstream_error', 'rate_limited']);

/** Failures that, once a POST has been sent and not acknowledged, may have left a paid task upstream. */
const MAYBE_SENT_KINDS = new Set(['maybe_submitted', 'cancelled', 'timeout']);

/**
 * Journals a final failure of the job `key` unless the upstream may still hold (or have been paid for) it.
 * `acknowledged`: the submit was acknowledged; `posted`: a submit POST was started and not since proven refused
 * (429/503 or never connected: `onNotCreated`). `secrets` are redacted.
 */
export async function journalJobFailure(
	store: Store,
	key: string,
	error: unknown,
	state: { acknowledged: boolean; posted: boolean },
	secrets: string[],
): Promise<void> {
	const kind = isFluxError(error) ? error.kind : undefined;
	if (!state.acknowledged && state.posted && kind !== undefined && MAYBE_SENT_KINDS.has(kind)) return; // stays `submitting`
	if (state.acknowledged && kind !== undefined && REATTACHABLE_KINDS.has(kind)) return; // stays `submitted`
	await store.journal.failed(key, error instanceof Error ? error.message : String(error), secrets, kind);
}
