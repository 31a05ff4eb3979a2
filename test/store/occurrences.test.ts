/** Occurrences of identical requests, counted per n8n execution (src/store/occurrences.ts). */
import { ExecutionOccurrences } from '../../src/store';

describe('ExecutionOccurrences', () => {
	it('counts each request digest per execution from 0; another execution counts again from 0', () => {
		const occurrences = new ExecutionOccurrences();
		expect([0, 1, 2].map(() => occurrences.next('exec-1', 'a'.repeat(64)))).toEqual([0, 1, 2]);
		expect(occurrences.next('exec-1', 'b'.repeat(64))).toBe(0);
		expect(occurrences.next('exec-2', 'a'.repeat(64))).toBe(0);
		expect(occurrences.next('exec-1', 'a'.repeat(64))).toBe(3);
	});

	it('forgets an execution idle for idleMs (executions end without telling the nodes)', () => {
		let clock = 0;
		const occurrences = new ExecutionOccurrences({ idleMs: 1000, now: () => clock });
		occurrences.next('old', 'k');
		clock = 500;
		occurrences.next('busy', 'k');
		clock = 1200; // old idle 1.2 s, busy 0.7 s
		occurrences.next('busy', 'k');
		expect(occurrences.size).toBe(1);
		expect(occurrences.next('old', 'k')).toBe(0);
		expect(occurrences.next('busy', 'k')).toBe(2);
	});

	it('remembers at most maxExecutions, forgetting the least recently active first', () => {
		const occurrences = new ExecutionOccurrences({ maxExecutions: 2 });
		occurrences.next('a', 'k');
		occurrences.next('b', 'k');
		occurrences.next('a', 'k'); // a is the most recent now
		occurrences.next('c', 'k'); // b goes
		expect(occurrences.size).toBe(2);
		expect(occurrences.next('a', 'k')).toBe(2);
		expect(occurrences.next('b', 'k')).toBe(0);
	});
});
