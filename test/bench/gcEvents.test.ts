/**
 * The bench's reading of a process's collections (bench/gcEvents.ts): perf_hooks' GC kinds as the GC table counts
 * them (V8's two young-generation collectors both as minor; a kind V8 does not define refused), and the reasons of
 * V8's `--trace-incremental-marking` start lines, counted.
 */
import { gcKindOf, markingReasons } from '../../bench/gcEvents';

describe('GC events', () => {
	it("counts V8's GC types as the table's kinds: both young-generation collectors as minor", () => {
		expect([1, 2, 4, 8, 16].map(gcKindOf)).toEqual(['minor', 'minor', 'major', 'incremental', 'weakcb']);
		expect(() => gcKindOf(32)).toThrow('a GC entry of kind 32');
	});

	it('counts why V8 started marking, from its trace lines only', () => {
		const trace = [
			'[12269:0x46e5f000:0]       49 ms: [IncrementalMarking] Start (external memory pressure): (size/waste/limit/slack) v8: 3MB / 0MB / 512MB / 509MB',
			'[12269:0x46e5f000:0]       50 ms: [IncrementalMarking] Start marking',
			'n8n log line: Start (not a trace)',
			'[12269:0x46e5f000:0]       94 ms: [IncrementalMarking] Start (external memory pressure): (size/waste/limit/slack) v8: 3MB',
			'[12269:0x46e5f000:0]      120 ms: [IncrementalMarking] Start (allocation limit reached): (size/waste/limit/slack) v8: 9MB',
		].join('\n');
		expect([...markingReasons(trace)]).toEqual([
			['external memory pressure', 2],
			['allocation limit reached', 1],
		]);
		expect(markingReasons('').size).toBe(0);
	});
});
