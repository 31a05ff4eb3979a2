/**
 * A preload (`node --require bench/gcRecorder.js …`) for a process the bench measures (the `n8n start` of the
 * real-n8n scenario, the engine worker): when FLUX_BENCH_GC_LOG names a file, every garbage collection of the
 * process's main thread is appended to it as one JSON line `{"at":<epoch ms of its start>,"ms":<pause>,"kind":<n>}`
 * (kind: V8's GCType as perf_hooks reports it, see bench/gcEvents.ts). Read by
 * bench/gcLog.ts. Plain JavaScript: n8n's Node runs it as it is. A PerformanceObserver costs a callback per
 * batch of collections (a few a second); the lines are written once per callback.
 */
'use strict';
const file = process.env.FLUX_BENCH_GC_LOG;
if (file) {
	const { appendFileSync } = require('node:fs');
	const { PerformanceObserver, performance } = require('node:perf_hooks');
	const observer = new PerformanceObserver((list) => {
		const lines = list.getEntries().map((entry) => {
			const kind = entry.detail && typeof entry.detail.kind === 'number' ? entry.detail.kind : entry.kind;
			// On the wall clock the bench's windows use (Date.now()), as it reads now: performance.timeOrigin is the wall
			// clock at the process's start, which a clock adjusted since (NTP) no longer matches.
			return JSON.stringify({ at: Date.now() - (performance.now() - entry.startTime), ms: entry.duration, kind }) + '\n';
		});
		try {
			appendFileSync(file, lines.join(''));
		} catch {
			// the bench's file is gone (its run ended): nothing to record
		}
	});
	observer.observe({ entryTypes: ['gc'] });
}
