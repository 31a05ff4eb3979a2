import { type CacheMode, type JournalState, MAYBE_PAID_REASON, type ResumeDecision, resumeDecision } from '../../src/store';

const table: [JournalState | 'none', CacheMode, ResumeDecision][] = [
	['none', 'reuse', 'new'],
	['none', 'refresh', 'new'],
	['none', 'off', 'new'],
	['submitting', 'reuse', 'maybe_paid'],
	['submitting', 'refresh', 'new'],
	['submitting', 'off', 'maybe_paid'],
	['submitted', 'reuse', 'reattach'],
	['submitted', 'refresh', 'new'],
	['submitted', 'off', 'reattach'],
	['stored', 'reuse', 'stored'],
	['stored', 'refresh', 'new'],
	['stored', 'off', 'new'],
	['failed', 'reuse', 'new'],
	['failed', 'refresh', 'new'],
	['failed', 'off', 'new'],
];

describe('resumeDecision', () => {
	it.each(table)('%s with cache=%s -> %s', (state, mode, expected) => {
		expect(resumeDecision(state === 'none' ? undefined : { state }, mode)).toBe(expected);
	});

	it('the maybe-paid reason tells the user what happened and how to send again', () => {
		expect(MAYBE_PAID_REASON).toMatch(/may already have been paid upstream; choose Refresh to send it again/);
	});
});
