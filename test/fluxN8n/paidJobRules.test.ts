/** The paid-job rules (src/fluxN8n/paidJobRules.ts): the table, every combination of facts, and the error classes. */
import { errorClassOf, type FluxErrorKind } from '../../src/flux';
import { FLUX_ERROR_KINDS } from '../../src/flux/errors';
import { FINAL_STEPS, NOT_KEPT, paidJobPlan, recordAfterFailure, type PaidJobFacts, type PlanStep } from '../../src/fluxN8n/paidJobRules';
import { MAYBE_PAID_REASON, type CacheMode, type JournalState } from '../../src/store';

type Record_ = PaidJobFacts['record'];
const none = { outcomeSinceAsked: false, waited: false, afterLoss: false };
const rec = (state: JournalState, errorKind?: string): Record_ => ({ state, errorKind });

describe('the plan, as the rules read', () => {
	it.each<[string, PaidJobFacts, PlanStep[]]>([
		['nothing journaled: a new job', { cacheMode: 'reuse', ...none }, ['send_new']],
		['Refresh: always a new job', { cacheMode: 'refresh', record: rec('stored'), ...none }, ['send_new']],
		['left at submitting: maybe paid, never resent', { cacheMode: 'reuse', record: rec('submitting'), ...none }, ['fail_maybe_paid']],
		['left at submitting under Off: still maybe paid', { cacheMode: 'off', record: rec('submitting'), ...none }, ['fail_maybe_paid']],
		['Refresh over submitting: the user asked to send again', { cacheMode: 'refresh', record: rec('submitting'), ...none }, ['send_new']],
		['acknowledged: re-attach, else send again', { cacheMode: 'off', record: rec('submitted'), ...none }, ['reattach', 'send_again']],
		['stored under Reuse: the store, else the upstream while it serves, else again', { cacheMode: 'reuse', record: rec('stored'), ...none }, ['take_stored', 'refetch_recent', 'send_again']],
		['stored under Off: a new job', { cacheMode: 'off', record: rec('stored'), ...none }, ['send_new']],
		['an earlier failure of this key: a new job', { cacheMode: 'reuse', record: rec('failed', 'content_moderated'), ...none }, ['send_new']],
		[
			'waited, the owner stored meanwhile (any mode): its result, else its task, else by the record',
			{ cacheMode: 'off', record: rec('stored'), outcomeSinceAsked: true, waited: true, afterLoss: false },
			['take_stored_since_asked', 'take_stored', 'refetch_outcome', 'send_new'],
		],
		[
			'waited, the owner was moderated: fail as it did, send nothing',
			{ cacheMode: 'refresh', record: rec('failed', 'content_moderated'), outcomeSinceAsked: true, waited: true, afterLoss: false },
			['take_stored_since_asked', 'fail_as_outcome'],
		],
		[
			'waited, the owner delivered but did not keep: its task, else by the record',
			{ cacheMode: 'reuse', record: rec('failed', NOT_KEPT), outcomeSinceAsked: true, waited: true, afterLoss: false },
			['take_stored_since_asked', 'refetch_outcome', 'send_new'],
		],
		[
			'waited, the owner timed out (would not repeat): by the record',
			{ cacheMode: 'reuse', record: rec('failed', 'timeout'), outcomeSinceAsked: true, waited: true, afterLoss: false },
			['take_stored_since_asked', 'send_new'],
		],
		[
			'claim lost, the new owner failed: fail, naming the take-over',
			{ cacheMode: 'reuse', record: rec('failed', 'timeout'), outcomeSinceAsked: true, waited: true, afterLoss: true },
			['take_stored_since_asked', 'fail_taken_over'],
		],
		[
			'claim lost, the new owner left nothing: by the record',
			{ cacheMode: 'reuse', record: rec('submitted'), outcomeSinceAsked: false, waited: false, afterLoss: true },
			['take_stored_since_asked', 'reattach', 'send_again'],
		],
	])('%s', (_name, facts, plan) => {
		expect(paidJobPlan(facts)).toEqual(plan);
	});
});

describe('every combination of facts', () => {
	const modes: CacheMode[] = ['reuse', 'refresh', 'off'];
	const records: Record_[] = [undefined, rec('submitting'), rec('submitted'), rec('stored'), rec('failed', 'content_moderated'), rec('failed', NOT_KEPT), rec('failed', 'timeout'), rec('failed')];
	const all: PaidJobFacts[] = modes.flatMap((cacheMode) =>
		records.flatMap((record) =>
			[false, true].flatMap((outcomeSinceAsked) => [false, true].flatMap((waited) => [false, true].map((afterLoss) => ({ cacheMode, record, outcomeSinceAsked, waited, afterLoss })))),
		),
	);
	/** The combinations whose plan breaks `rule`, each named by its facts and plan (so a failure shows which). */
	const breaking = (rule: (facts: PaidJobFacts, plan: PlanStep[]) => boolean) =>
		all.flatMap((facts) => {
			const plan = paidJobPlan(facts);
			return rule(facts, plan) ? [] : [`${JSON.stringify(facts)} → ${plan.join(', ')}`];
		});

	it('covers 192 combinations', () => expect(all).toHaveLength(192));

	it('every plan has one final step, and it is the last', () => {
		expect(breaking((_facts, plan) => plan.filter((step) => FINAL_STEPS.has(step)).length === 1 && FINAL_STEPS.has(plan[plan.length - 1]))).toEqual([]);
	});

	it('a job left at submitting is never sent again but under Refresh', () => {
		expect(breaking((facts, plan) => facts.record?.state !== 'submitting' || plan[plan.length - 1] === (facts.cacheMode === 'refresh' ? 'send_new' : 'fail_maybe_paid'))).toEqual([]);
	});

	it('an acknowledged job is re-attached before anything is sent, but under Refresh', () => {
		expect(breaking((facts, plan) => facts.record?.state !== 'submitted' || facts.cacheMode === 'refresh' || (plan.includes('reattach') && plan.indexOf('reattach') < plan.length - 1))).toEqual([]);
	});

	it('a result stored before this job asked is taken only under Reuse', () => {
		expect(
			breaking((facts, plan) => facts.outcomeSinceAsked || ((facts.cacheMode === 'reuse' || !plan.includes('take_stored')) && plan.includes('refetch_recent') === (facts.cacheMode === 'reuse' && facts.record?.state === 'stored'))),
		).toEqual([]);
	});

	it("another job's outcome is taken only when it came since this job asked", () => {
		expect(breaking((facts, plan) => facts.outcomeSinceAsked || !plan.some((step) => ['refetch_outcome', 'fail_as_outcome', 'fail_taken_over'].includes(step)))).toEqual([]);
	});

	it('a job fails as another did only when that failure would repeat', () => {
		expect(breaking((facts, plan) => !plan.includes('fail_as_outcome') || errorClassOf(facts.record?.errorKind).repeats)).toEqual([]);
	});

	it('it looks for what the owner it waited for kept exactly when it waited or lost its claim', () => {
		expect(breaking((facts, plan) => (plan[0] === 'take_stored_since_asked') === (facts.waited || facts.afterLoss))).toEqual([]);
	});
});

describe('the error classes (src/flux/errors.ts) and the record after a failure', () => {
	// The classes as the paid-job rule states them (docs/ARCHITECTURE.md), written out here independently.
	const repeats: FluxErrorKind[] = ['request_moderated', 'content_moderated', 'generation_error', 'bad_request', 'auth', 'credits', 'forbidden_host', 'not_an_image', 'too_large', 'invalid_response'];
	const taskMayFinish: FluxErrorKind[] = ['timeout', 'cancelled', 'network', 'download_failed', 'upstream_error', 'rate_limited'];
	const postMayHaveLeft: FluxErrorKind[] = ['maybe_submitted', 'cancelled', 'timeout'];

	it.each(FLUX_ERROR_KINDS.map((kind) => [kind]))('%s', (kind) => {
		expect(errorClassOf(kind)).toEqual({ repeats: repeats.includes(kind), taskMayFinish: taskMayFinish.includes(kind), postMayHaveLeft: postMayHaveLeft.includes(kind) });
		for (const acknowledged of [false, true]) {
			for (const posted of [false, true]) {
				const expected = !acknowledged && posted && postMayHaveLeft.includes(kind) ? 'keep_submitting' : acknowledged && taskMayFinish.includes(kind) ? 'keep_submitted' : 'failed';
				expect(recordAfterFailure({ acknowledged, posted, errorKind: kind })).toBe(expected);
			}
		}
	});

	it('a failure of no known kind (not a FluxError, or not_kept) is in no class and is journaled as failed', () => {
		for (const errorKind of [undefined, NOT_KEPT, 'something else']) {
			expect(errorClassOf(errorKind)).toEqual({ repeats: false, taskMayFinish: false, postMayHaveLeft: false });
			expect(recordAfterFailure({ acknowledged: true, posted: true, errorKind })).toBe('failed');
		}
	});

	it('the maybe-paid reason tells the user how to send again', () => {
		expect(MAYBE_PAID_REASON).toMatch(/may already have been paid upstream; choose Refresh to send it again/);
	});
});
