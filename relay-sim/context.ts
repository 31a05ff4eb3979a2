/** State shared by the simulator's route handlers. */
import { DraftCaches } from './draftCache';
import { FaultBook } from './faults';
import { createLog } from './log';
import { TaskStore } from './tasks';
import type { RelaySimOptions, SimLog } from './types';

export const DEFAULT_API_KEY = 'sim-test-key-0123456789abcdef';
/** BFL's FLUX 3 Video limit: 5 active generations per organization. */
export const DEFAULT_MAX_ACTIVE_VIDEO = 5;

export interface SimSettings {
	maxActiveTasks?: number;
	maxActiveVideoTasks?: number;
	videoBytes?: number;
	retryAfterSeconds: number;
	imageBytes?: number;
	imageSize?: { width: number; height: number };
	signedUrlTtlMs: number;
	maxBodyBytes: number;
	credits: number;
	creditsRoute: boolean;
	unknownTask404: boolean;
	reportCost: boolean;
}

export interface SimContext {
	url: string; // set once listening
	hostHeader: string; // '127.0.0.1:PORT'
	port: number;
	apiKey: string;
	log: SimLog;
	faults: FaultBook;
	tasks: TaskStore;
	drafts: DraftCaches; // issues and recognises FLUX 3 Video draft caches
	now: () => number;
	settings: SimSettings;
	timers: Set<NodeJS.Timeout>; // slow-download timers, cleared by close()
	inFlight: number;
}

export function createContext(options: RelaySimOptions): SimContext {
	const log = createLog();
	const faults = new FaultBook();
	const now = options.now ?? Date.now;
	const tasks = new TaskStore(faults, log, now);
	tasks.setLatency(options.latencyMs);
	return {
		url: '',
		hostHeader: '',
		port: 0,
		apiKey: options.apiKey ?? DEFAULT_API_KEY,
		log,
		faults,
		tasks,
		drafts: new DraftCaches(),
		now,
		settings: {
			maxActiveTasks: options.maxActiveTasks,
			maxActiveVideoTasks: 'maxActiveVideoTasks' in options ? options.maxActiveVideoTasks : DEFAULT_MAX_ACTIVE_VIDEO,
			videoBytes: options.videoBytes,
			retryAfterSeconds: options.retryAfterSeconds ?? 1,
			imageBytes: options.imageBytes,
			imageSize: options.imageSize,
			signedUrlTtlMs: options.signedUrlTtlMs ?? 600_000,
			maxBodyBytes: options.maxBodyBytes ?? 64 * 1024 * 1024,
			credits: options.credits ?? 1000,
			creditsRoute: options.creditsRoute ?? true,
			unknownTask404: options.unknownTask404 ?? false,
			reportCost: options.reportCost ?? true,
		},
		timers: new Set(),
		inFlight: 0,
	};
}
