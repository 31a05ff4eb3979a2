/** bench/probeGcReasons.ts: V8's trace lines read (full collections counted, marking starts by reason, young-generation lines ignored); its arms. */
import { probeArms, readGcTrace } from '../../bench/probeGcReasons';
import { argReader } from '../../bench/profileBatches';

const TRACE = `
[31779:0x23bc4000:0]    25328 ms: [IncrementalMarking] Start (external memory pressure): (size/waste/limit/slack) v8: 211MB / 0MB / 901MB / 690MB global: 211MB / 0MB / 901MB / 690MB
[31779:0x23bc4000:0]    25328 ms: [IncrementalMarking] Start marking
[31779:0x23bc4000]    25400 ms: Scavenge 240.1 (368.2) -> 236.0 (368.2) MB, pooled: 132 MB, 3.10 / 0.00 ms  (average mu = 0.977, current mu = 0.980) allocation failure;
[31779:0x23bc4000]    25500 ms: Minor Mark-Compact 240.1 (368.2) -> 236.0 (368.2) MB, 3.10 / 0.00 ms  (average mu = 0.977, current mu = 0.980) allocation failure;
[31779:0x23bc4000]    25597 ms: Mark-Compact 254.3 (368.2) -> 205.2 (366.2) MB, pooled: 132 MB, 24.61 / 0.52 ms  (+ 57.9 ms in 327 steps since start of marking, biggest step 8.2 ms, walltime since start of marking 269 ms) (average mu = 0.977, current mu = 0.980) finalize incremental marking via task; GC in old space requested
[31779:0x23bc4000:0]    28013 ms: [IncrementalMarking] Start (task): (size/waste/limit/slack) v8: 206MB / 0MB / 291MB / 85MB global: 206MB / 0MB / 291MB / 85MB
[31779:0x23bc4000]    28253 ms: Mark-Compact 239.0 (366.2) -> 199.7 (363.0) MB, pooled: 132 MB, 32.44 / 0.37 ms  (+ 37.3 ms in 92 steps since start of marking) finalize incremental marking via task; GC in old space requested
[31779:0x23bc4000:0]    29064 ms: [IncrementalMarking] Start (external memory pressure): (size/waste/limit/slack) v8: 199MB
n8n's own log line mentioning nothing of the kind
`;

it('counts the full collections and the marking starts by reason, not the young generation', () => {
	const trace = readGcTrace(TRACE);
	expect(trace.fullCollections).toBe(2);
	expect(Object.fromEntries(trace.markingStarts)).toEqual({ 'external memory pressure': 2, task: 1 });
});

it('nothing traced: none', () => {
	expect(readGcTrace('')).toEqual({ fullCollections: 0, markingStarts: new Map() });
});

it('one arm as configured; --compare adds one with that variable in n8n\'s environment; anything else is refused', () => {
	expect([...probeArms(undefined)]).toEqual([['as configured', {}]]);
	expect([...probeArms('COMFLY_POLL_RATE=60')]).toEqual([['as configured', {}], ['COMFLY_POLL_RATE=60', { COMFLY_POLL_RATE: '60' }]]);
	expect(() => probeArms('poll rate 60')).toThrow(/--compare must be VAR=VALUE/);
});

it("a profile's arguments (profileBatches.ts argReader): read by name, absent as undefined, an unknown one refused naming the script", () => {
	const value = argReader(['--targets=2.41.1', '--compare=A=B'], ['targets', 'compare', 'rounds'], 'bench/probeGcReasons.ts');
	expect([value('targets'), value('compare'), value('rounds')]).toEqual(['2.41.1', 'A=B', undefined]);
	expect(() => argReader(['--compar=A=B'], ['compare'], 'bench/probeGcReasons.ts')).toThrow('bench/probeGcReasons.ts: unknown argument(s) --compar=A=B');
});
