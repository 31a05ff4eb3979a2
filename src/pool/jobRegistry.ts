import { randomUUID } from 'node:crypto';

import { waitUnlessAborted } from './abortable';
import { PACKAGE_LOG_PREFIX as LOG_PREFIX } from '../logger';
import { ExpiredJobError, PoolCancelledError, UnknownJobError } from './errors';
import type { JobKind, JobSnapshot, JobState, JobTimings } from './types';

/** How a job ended. */
export type JobOutcome =
	| { state: 'succeeded'; result: unknown; bytes: number }
	| { state: 'failed' | 'cancelled'; error: unknown };

export interface JobRegistryOptions {
	/** Time-to-live of a finished job, from its finishedAt. */
	ttlMs: number;
	/** Bound on the total bytes of results kept (all kinds). */
	maxBytes: number;
	/** Clock, epoch ms (default Date.now). */
	now?: () => number;
	/** How many expired ids are remembered, to tell "expired" from "unknown" (default 10,000). */
	maxTombstones?: number;
	/** Told once each time results nobody has collected yet alone exceed `maxBytes` (default: nowhere). */
	warn?: (message: string) => void;
}

interface JobRecord {
	id: string;
	kind: JobKind;
	owner?: string;
	state: JobState;
	result?: unknown;
	error?: unknown;
	bytes: number;
	/** Its result was delivered by a collector: the byte bound may drop it. */
	collected: boolean;
	attempts: number;
	timings: JobTimings;
	meta: Record<string, unknown>;
	waiters: Set<(snapshot: JobSnapshot) => void>;
}

const isFinal = (state: JobState) => state !== 'queued' && state !== 'running';

/**
 * Job id → state, result or error, timings and attempts.
 * Finished jobs expire lazily (swept on registry operations, no timers) after the time-to-live.
 * While the retained bytes exceed the bound, the results collectors have already delivered are
 * dropped, oldest delivery first. A result nobody has collected yet is never dropped before its
 * time-to-live (it may be all that is left of a paid job): when such results alone exceed the
 * bound they are kept, and `warn` is told once (again only after the bytes fell back within it).
 * A result stays readable after it is read or collected, until it expires.
 */
export class JobRegistry {
	readonly now: () => number;
	private readonly ttlMs: number;
	private readonly maxBytes: number;
	private readonly maxTombstones: number;
	private readonly jobs = new Map<string, JobRecord>();
	/** Finished jobs, oldest first. */
	private readonly finished = new Map<string, JobRecord>();
	/** Collected results holding bytes, oldest collection first: what the byte bound may drop. */
	private readonly evictable = new Map<string, JobRecord>();
	private readonly warn: (message: string) => void;
	private warnedOverBound = false;
	private readonly tombstones = new Set<string>();
	private readonly bytes: Record<JobKind, number> = { image: 0, video: 0 };

	constructor(options: JobRegistryOptions) {
		this.ttlMs = options.ttlMs;
		this.maxBytes = options.maxBytes;
		this.now = options.now ?? Date.now;
		this.maxTombstones = options.maxTombstones ?? 10_000;
		this.warn = options.warn ?? (() => undefined);
	}

	/** Registers a new queued job and returns its id. */
	create(kind: JobKind, owner?: string, meta: Record<string, unknown> = {}): string {
		this.sweep();
		const id = randomUUID();
		this.jobs.set(id, {
			id,
			kind,
			owner,
			state: 'queued',
			bytes: 0,
			collected: false,
			attempts: 0,
			timings: { queuedAt: this.now() },
			meta: { ...meta },
			waiters: new Set(),
		});
		return id;
	}

	/** queued → running. */
	start(id: string): void {
		const record = this.jobs.get(id);
		if (record?.state !== 'queued') return;
		record.state = 'running';
		record.timings.startedAt = this.now();
	}

	setAttempts(id: string, attempts: number): void {
		const record = this.jobs.get(id);
		if (record && !isFinal(record.state) && Number.isFinite(attempts)) {
			record.attempts = Math.max(0, Math.trunc(attempts));
		}
	}

	/** Marks the job final, wakes its waiters, then enforces the time-to-live and byte bound. */
	finish(id: string, outcome: JobOutcome): void {
		const record = this.jobs.get(id);
		if (!record || isFinal(record.state)) return;
		record.state = outcome.state;
		record.timings.finishedAt = this.now();
		if (outcome.state === 'succeeded') {
			record.result = outcome.result;
			record.bytes = Number.isFinite(outcome.bytes) ? Math.max(0, outcome.bytes) : 0;
			this.bytes[record.kind] += record.bytes;
		} else {
			record.error = outcome.error;
		}
		this.finished.set(id, record);
		const snapshot = this.snapshot(record);
		for (const settle of record.waiters) settle(snapshot);
		record.waiters.clear();
		this.sweep();
	}

	/**
	 * The job's result was delivered (a collector put it in its output): from now on the byte
	 * bound may drop it. Unknown, unfinished or already collected ids are ignored.
	 */
	markCollected(id: string): void {
		const record = this.jobs.get(id);
		if (!record || !isFinal(record.state) || record.collected) return;
		record.collected = true;
		if (record.bytes > 0) this.evictable.set(id, record);
		this.sweep();
	}

	/** Current snapshot; throws UnknownJobError or ExpiredJobError. */
	get<T = unknown>(id: string): JobSnapshot<T> {
		return this.snapshot(this.lookup(id)) as JobSnapshot<T>;
	}

	/**
	 * Resolves with the snapshot once the job is final (whatever its state).
	 * Rejects with UnknownJobError / ExpiredJobError, or PoolCancelledError when `signal` aborts.
	 */
	async whenFinal<T = unknown>(id: string, signal?: AbortSignal): Promise<JobSnapshot<T>> {
		const record = this.lookup(id);
		if (isFinal(record.state) && !signal?.aborted) return this.snapshot(record) as JobSnapshot<T>;
		const snapshot = await waitUnlessAborted<JobSnapshot>(
			signal,
			() => new PoolCancelledError(`Cancelled while waiting for job "${id}".`),
			(settle) => {
				record.waiters.add(settle);
				return () => record.waiters.delete(settle);
			},
		);
		return snapshot as JobSnapshot<T>;
	}

	/** Bytes of results held, for one kind or all. */
	retainedBytes(kind?: JobKind): number {
		this.sweep();
		return kind ? this.bytes[kind] : this.totalBytes();
	}

	private lookup(id: string): JobRecord {
		this.sweep();
		const record = this.jobs.get(id);
		if (record) return record;
		throw this.tombstones.has(id) ? new ExpiredJobError(id) : new UnknownJobError(id);
	}

	private sweep(): void {
		const now = this.now();
		for (const record of this.finished.values()) {
			if (now - (record.timings.finishedAt ?? now) < this.ttlMs) break;
			this.expire(record);
		}
		for (const record of this.evictable.values()) {
			if (this.totalBytes() <= this.maxBytes) break;
			this.expire(record);
		}
		this.warnOnceOverBound();
	}

	private totalBytes(): number {
		return this.bytes.image + this.bytes.video;
	}

	/** Only uncollected results are left above the bound: keep them, say so once. */
	private warnOnceOverBound(): void {
		const over = this.totalBytes() > this.maxBytes;
		if (over && !this.warnedOverBound) {
			const mb = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);
			this.warn(
				`${LOG_PREFIX} Results not yet collected hold ${mb(this.totalBytes())} MB, above the ` +
					`${mb(this.maxBytes)} MB of COMFLY_RESULT_MAX_MB. They are kept until a collector delivers them ` +
					'or COMFLY_RESULT_TTL_SECONDS passes, so that no paid result is lost.',
			);
		}
		this.warnedOverBound = over;
	}

	private expire(record: JobRecord): void {
		this.jobs.delete(record.id);
		this.finished.delete(record.id);
		this.evictable.delete(record.id);
		this.bytes[record.kind] -= record.bytes;
		this.tombstones.add(record.id);
		if (this.tombstones.size > this.maxTombstones) {
			this.tombstones.delete(this.tombstones.values().next().value as string);
		}
	}

	private snapshot(record: JobRecord): JobSnapshot {
		const { id, kind, owner, state, result, error, attempts, timings, meta } = record;
		return { id, kind, owner, state, result, error, attempts, timings: { ...timings }, meta: { ...meta } };
	}
}
