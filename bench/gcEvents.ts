/**
 * A process's garbage collections as the bench reads them: perf_hooks' GC entries, and V8's `--trace-incremental-marking`
 * lines. Two readers deliver the entries: heapProfile.ts's inspector session (inspectorSession.ts, with the heap
 * profiler) and, without an inspector, the preload gcRecorder.js with gcLog.ts (the real-n8n scenario).
 */

/**
 * One GC pause the process observed (a perf_hooks 'gc' entry), its main-thread duration in ms: a young-generation
 * collection ('minor'), a full mark-compact ('major'), the start of incremental marking ('incremental': the entry
 * times the start only, not the marking steps after it), or the weak callbacks ('weakcb').
 */
export interface GcPause {
	kind: 'minor' | 'major' | 'incremental' | 'weakcb';
	ms: number;
}

/** V8's GCType as perf_hooks reports it: 1 scavenge and 2 minor mark-sweep (both young generation), 4 mark-compact, 8 incremental marking, 16 weak callbacks. */
export function gcKindOf(type: number): GcPause['kind'] {
	const kind = knownGcKind(type);
	if (kind === undefined) throw new Error(`a GC entry of kind ${type}, which V8's GCType does not define`);
	return kind;
}

/** {@link gcKindOf}, or undefined for a type V8's GCType does not define (a newer V8's). */
export function knownGcKind(type: number): GcPause['kind'] | undefined {
	return GC_KINDS[type];
}

const GC_KINDS: Readonly<Record<number, GcPause['kind']>> = { 1: 'minor', 2: 'minor', 4: 'major', 8: 'incremental', 16: 'weakcb' };

/** V8's `--trace-incremental-marking` line that starts a marking, and its reason. */
const MARKING_START = /\[IncrementalMarking\] Start \(([^)]+)\)/g;

/** Why V8 started incremental marking in `text` (V8's reasons, counted). */
export function markingReasons(text: string): Map<string, number> {
	const reasons = new Map<string, number>();
	for (const [, reason] of text.matchAll(MARKING_START)) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
	return reasons;
}
