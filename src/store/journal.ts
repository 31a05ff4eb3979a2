/**
 * The write-ahead job journal, keyed by the job key, in its own cacache folder: each state change is one
 * appended index entry whose metadata is the whole record (cacache's per-key index is an append-only log, safe
 * across processes; `info` gives the latest). A second key `job:<jobId>` resolves a pool job id to its job key,
 * so a collector in a new process finds the job. Never holds an API key (only `apiKeyHash`).
 */
import * as path from 'node:path';
import { z } from 'zod';
import { redact } from '../flux/redact';
import { logWarning } from '../n8n/log';
import { type CacheBackend, cacacheBackend } from './cacheBackend';
import { ensureStoreFolder } from './storeFolder';
import { StoreFaults, type StoreHealth, describeStoreError } from './storeHealth';

export type JournalState = 'submitting' | 'submitted' | 'stored' | 'failed';

/** What is known before the submit is sent. */
export interface JobStart {
	jobId: string;
	apiStyle: string;
	baseUrl: string;
	model: string;
	apiKeyHash: string;
}

/** The latest state of a job key. */
export interface JournalRecord extends JobStart {
	jobKey: string;
	state: JournalState;
	/** Epoch ms of the `submitting` record. */
	createdAt: number;
	/** Epoch ms of this record. */
	updatedAt: number;
	/** Upstream task id (from `submitted` on). */
	taskId?: string;
	/** Upstream polling URL (from `submitted` on). */
	pollingUrl?: string;
	/** Redacted reason of a final failure. */
	reason?: string;
}

export interface JobJournalOptions {
	ttlMs: number;
	backend?: CacheBackend;
	now?: () => number;
	faults?: StoreFaults;
}

const recordSchema = z.object({
	jobKey: z.string().min(1),
	state: z.enum(['submitting', 'submitted', 'stored', 'failed']),
	jobId: z.string().min(1),
	apiStyle: z.string(),
	baseUrl: z.string(),
	model: z.string(),
	apiKeyHash: z.string(),
	createdAt: z.number(),
	updatedAt: z.number(),
	taskId: z.string().optional(),
	pollingUrl: z.string().optional(),
	reason: z.string().optional(),
});
const jobLinkSchema = z.object({ jobKey: z.string().min(1) });

/** Folder of the journal inside the store folder. */
export const JOURNAL_SUBFOLDER = 'journal';
const KEY_PREFIX = 'key:';
const JOB_PREFIX = 'job:';
/** Every record shares this (empty) content: the record lives in the index entry's metadata. */
const NO_CONTENT = Buffer.alloc(0);
const MAX_REASON_LENGTH = 300;

export class JobJournal {
	readonly cacheDir: string;
	private readonly backend: CacheBackend;
	private readonly now: () => number;
	private readonly faults: StoreFaults;

	constructor(
		readonly rootDir: string,
		private readonly options: JobJournalOptions,
	) {
		this.cacheDir = path.join(rootDir, JOURNAL_SUBFOLDER);
		this.backend = options.backend ?? cacacheBackend;
		this.now = options.now ?? Date.now;
		this.faults = options.faults ?? new StoreFaults(logWarning);
	}

	health(): StoreHealth {
		return this.faults.health();
	}

	/** Before the POST: the job key is about to be paid for. Also links `jobId` to the key. False on failure. */
	async submitting(key: string, start: JobStart): Promise<boolean> {
		const at = this.now();
		const { jobId, apiStyle, baseUrl, model, apiKeyHash } = start;
		const record: JournalRecord = { jobKey: key, state: 'submitting', jobId, apiStyle, baseUrl, model, apiKeyHash, createdAt: at, updatedAt: at };
		return (await this.append(KEY_PREFIX + key, record)) && this.append(JOB_PREFIX + jobId, { jobKey: key });
	}

	/** Links another pool job id to `key` (a job served from the store, re-attached, or sharing a flight). */
	link(jobId: string, key: string): Promise<boolean> {
		return this.append(JOB_PREFIX + jobId, { jobKey: key });
	}

	/** The upstream acknowledged the submit. False on failure or when no `submitting` record exists. */
	submitted(key: string, ack: { taskId: string; pollingUrl?: string }): Promise<boolean> {
		return this.advance(key, { state: 'submitted', taskId: ack.taskId, pollingUrl: ack.pollingUrl });
	}

	/** The result is in the result store. */
	stored(key: string): Promise<boolean> {
		return this.advance(key, { state: 'stored' });
	}

	/** Final failure; `reason` is redacted (URLs, tokens and the given secrets removed). */
	failed(key: string, reason: string, secrets: readonly string[] = []): Promise<boolean> {
		return this.advance(key, { state: 'failed', reason: redact(reason, secrets, MAX_REASON_LENGTH) });
	}

	/** The latest record of `key`, or undefined (none, unreadable, or older than the TTL). */
	async read(key: string): Promise<JournalRecord | undefined> {
		const metadata = await this.latest(KEY_PREFIX + key);
		const parsed = recordSchema.safeParse(metadata);
		return parsed.success ? parsed.data : undefined;
	}

	/** Resolves a pool job id to its job key and the key's latest record (whose jobId may be a later job's). */
	async findByJobId(jobId: string): Promise<{ jobKey: string; record: JournalRecord } | undefined> {
		const link = jobLinkSchema.safeParse(await this.latest(JOB_PREFIX + jobId));
		if (!link.success) return undefined;
		const record = await this.read(link.data.jobKey);
		return record && { jobKey: link.data.jobKey, record };
	}

	/** Drops records and job links older than the TTL. Resolves with how many went, undefined on failure. */
	async prune(): Promise<number | undefined> {
		try {
			const entries = Object.values(await this.backend.ls(this.cacheDir));
			const old = entries.filter((e) => this.isExpired(e.time));
			for (const entry of old) await this.backend.rmEntry(this.cacheDir, entry.key);
			return old.length;
		} catch (error) {
			if ((error as { code?: unknown }).code === 'ENOENT') return 0;
			this.faults.fault(describeStoreError('pruning the journal', this.rootDir, error));
			return undefined;
		}
	}

	private async advance(key: string, change: Partial<JournalRecord>): Promise<boolean> {
		const previous = await this.read(key);
		if (previous === undefined) return false;
		return this.append(KEY_PREFIX + key, { ...previous, ...change, updatedAt: this.now() });
	}

	private async append(cacheKey: string, metadata: unknown): Promise<boolean> {
		try {
			await ensureStoreFolder(this.cacheDir); // 0700 even inside an existing open folder
			await this.backend.put(this.cacheDir, cacheKey, NO_CONTENT, { metadata, time: this.now() });
		} catch (error) {
			this.faults.fault(describeStoreError('writing the job journal', this.rootDir, error));
			return false;
		}
		this.faults.recovered();
		return true;
	}

	private isExpired(time: number): boolean {
		return time < this.now() - this.options.ttlMs;
	}

	private async latest(cacheKey: string): Promise<unknown> {
		try {
			const entry = await this.backend.info(this.cacheDir, cacheKey);
			return entry && !this.isExpired(entry.time) ? entry.metadata : undefined;
		} catch (error) {
			const code = (error as { code?: unknown }).code;
			if (code !== 'ENOENT' && code !== 'ENOTDIR') {
				this.faults.fault(describeStoreError('reading the job journal', this.rootDir, error));
			}
			return undefined;
		}
	}
}
