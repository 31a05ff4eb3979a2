/** SubmitJournal: what a job's own submit writes to the journal, and what it must never overwrite. */
import { SubmitJournal } from '../../src/fluxN8n/submitJournal';
import { paidJobPlan } from '../../src/fluxN8n/paidJobRules';
import { getStore } from '../../src/store';

const start = (jobId: string) => ({ jobId, apiStyle: 'bfl' as const, baseUrl: 'http://127.0.0.1:1', model: 'flux-2-pro', apiKeyHash: 'h' });

it("a job whose claim was taken over leaves the new owner's record as it is (never turns its paid task into a failure)", async () => {
	const store = getStore();
	const key = 'claim-lost-key';
	let held = true;
	jest.spyOn(store.claims, 'stillHeld').mockImplementation(async () => held);
	// Job A's first POST is refused with a 429 (no task): it journaled `submitting`, then waits to send again.
	const a = new SubmitJournal(store, key, start('job-A'), []);
	await a.beforeSend();
	a.onSent();
	a.onNotCreated();
	await a.settled();
	// A is silent past its claim's lapse; job B takes the key over, sends, and is acknowledged (paid).
	held = false;
	await store.journal.submitting(key, start('job-B'));
	await store.journal.submitted(key, { taskId: 'task-B' });
	// A's retry is stopped before its body leaves (CLAIM_LOST), and A fails with that.
	const lost = await a.beforeSend().catch((error: unknown) => error);
	expect(lost).toMatchObject({ kind: 'cancelled', code: 'CLAIM_LOST' });
	await a.failed(lost);
	const after = await store.journal.read(key);
	expect(after).toMatchObject({ state: 'submitted', jobId: 'job-B', taskId: 'task-B' });
	// So a later run (B killed before it stored) re-attaches to B's task instead of paying again.
	expect(paidJobPlan({ cacheMode: 'reuse', record: after, outcomeSinceAsked: false, waited: false, afterLoss: false })).toEqual(['reattach', 'send_again']);
});
