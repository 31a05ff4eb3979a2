/** The simulator's request log: a live object that tests and benchmarks read directly. */
import type { SimLog } from './types';

export function createLog(): SimLog {
	return {
		submits: [],
		submitsByPrompt: new Map(),
		tasks: new Map(),
		polls: 0,
		pollsByTask: new Map(),
		pollTimes: [],
		downloads: 0,
		downloadsByTask: new Map(),
		draftCacheDownloads: 0,
		downloadSpans: new Map(),
		redirects: 0,
		peakActiveTasks: 0,
		peakActiveVideoTasks: 0,
		peakConcurrentRequests: 0,
		credentialOnDownload: false,
		unauthorized: 0,
		foreignHostRequests: 0,
		creditChecks: 0,
		charged: 0,
	};
}

/** Clear in place, so references held by tests stay valid. */
export function clearLog(log: SimLog): void {
	Object.assign(log, createLog(), {
		submits: log.submits,
		submitsByPrompt: log.submitsByPrompt,
		tasks: log.tasks,
		pollsByTask: log.pollsByTask,
		pollTimes: log.pollTimes,
		downloadsByTask: log.downloadsByTask,
		downloadSpans: log.downloadSpans,
	});
	log.pollTimes.length = 0;
	log.submits.length = 0;
	log.submitsByPrompt.clear();
	log.tasks.clear();
	log.pollsByTask.clear();
	log.downloadsByTask.clear();
	log.downloadSpans.clear();
}

export function increment<K>(map: Map<K, number>, key: K): number {
	const n = (map.get(key) ?? 0) + 1;
	map.set(key, n);
	return n;
}
