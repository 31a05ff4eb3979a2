import { settings, type PoolConfig } from '../config';
import { logWarning } from '../logger';
import { processWide } from '../processWide';
import { JobRegistry } from './jobRegistry';
import type { JobKind } from './types';
import { WorkerPool } from './workerPool';

/** The image pool, the video pool and the registry they share. */
export interface PoolSet {
	image: WorkerPool;
	video: WorkerPool;
	registry: JobRegistry;
	config: PoolConfig;
}

export interface PoolSetOptions {
	/** Clock for the registry, epoch ms (default Date.now). */
	now?: () => number;
	/** Where the registry's warnings go (default: nowhere; the process singleton uses the package logger). */
	warn?: (message: string) => void;
}

/** Builds an isolated pool set (tests, benchmarks); production code uses getPoolSet(). */
export function createPoolSet(config: PoolConfig, options: PoolSetOptions = {}): PoolSet {
	const registry = new JobRegistry({ ttlMs: config.resultTtlMs, maxBytes: config.resultMaxBytes, now: options.now, warn: options.warn });
	return {
		image: new WorkerPool('image', config.image, registry),
		video: new WorkerPool('video', config.video, registry),
		registry,
		config,
	};
}

/** The process-wide pool set (shared by every copy of the package: src/processWide.ts), built on first use from the settings. */
export function getPoolSet(): PoolSet {
	return processWide('poolSet', () => createPoolSet(settings().pool, { warn: logWarning }));
}

/** The process-wide pool for a job kind. */
export function poolFor(kind: JobKind): WorkerPool {
	return getPoolSet()[kind];
}
