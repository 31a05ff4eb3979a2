/**
 * The write-ahead job journal, keyed by the job key, in its own folder of compact append-only logs
 * (journalLog.ts): each state change is one appended line whose value is the whole record; the latest wins.
 * A second entry `job:<jobId>` resolves a pool job id to its job key, so a collector in a new process finds the
 * job. With a mirror (Redis, queue mode) every entry is also written there and reads take the latest of the
 * folder's, the mirror's and the spare folder's entry: by revision (each write carries one more than the highest
 * its writer had seen of that name), never by the writers' clocks, which may disagree between hosts; time only
 * breaks a tie (and orders the entries of earlier versions, which have no revision: 0). `submitting` and its job
 * link are on disk (synced, group commit: journalAhead.ts) before `submitting` resolves, so before the body leaves;
 * the later states are not synced: losing one in a power cut leaves the key at an earlier state (`submitting`:
 * refused as maybe paid; `submitted`: re-attached), never one that sends a job again.
 * Never holds an API key (only `apiKeyHash`). A damaged line or a journal lost while the store kept its results
 * is a store note (logged once, in the report), never silent. The cacache journal of earlier versions is moved
 * into the logs on first use.
 */
import { promises as fs } from 'node:fs';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { z } from 'zod';

import { type DiskSync, sweepTemporaries } from '../coordination/atomicFile';
import { ReplayQueue } from '../coordination/replayQueue';
import { redact } from '../redact';
import { logWarning } from '../logger';
import { listCacheIndex } from './cacheIndexList';
import { codeOf } from './fsErrors';
import { JournalLog, laterEntry, latestByName, type LogEntry } from './journalLog';
import { ensureStoreFolder } from './storeFolder';
import { StoreFaults, describeStoreError } from './storeHealth';

const recordSchema = z.object({
	jobKey: z.string().min(1),
	state: z.enum(['submitting', 'submitted', 'stored', 'failed']),
	jobId: z.string().min(1),
	apiStyle: z.string(),
	baseUrl: z.string(),
	model: z.string(),
	apiKeyHash: z.string(),
	/** Epoch ms of the `submitting` record. */
	createdAt: z.number(),
	/** Epoch ms of this record. */
	updatedAt: z.number(),
	/** Upstream task id (from `submitted` on). */
	taskId: z.string().optional(),
	/** Upstream polling URL (from `submitted` on). */
	pollingUrl: z.string().optional(),
	/** The submit answer's cost in credits, when it reported one (a re-attached job still says what it cost). */
	cost: z.number().nonnegative().optional(),
	/** Redacted reason of a final failure. */
	reason: z.string().optional(),
	/** The FluxError kind of a final failure, when it had one. */
	errorKind: z.string().optional(),
});
const jobLinkSchema = z.object({ jobKey: z.string().min(1) });

/** The latest state of a job key. */
export type JournalRecord = z.infer<typeof recordSchema>;
export type JournalState = JournalRecord['state'];
/** What is known before the submit is sent. */
export type JobStart = Pick<JournalRecord, 'jobId' | 'apiStyle' | 'baseUrl' | 'model' | 'apiKeyHash'>;

/** Where entries are mirrored (Redis in queue mode): reads take the newer of the local and the mirrored entry. */
export interface JournalMirror {
	get(name: string): Promise<LogEntry | undefined>;
	/** False when the entry could not be mirrored (the mirror is away or refused it): it waits in the replay queue. */
	put(entry: LogEntry): Promise<boolean>;
}

export interface JobJournalOptions {
	ttlMs: number;
	now?: () => number;
	faults?: StoreFaults;
	mirror?: JournalMirror;
	/** Where entries the mirror did not take wait for it to answer again (the Redis connection's queue; default: the journal's own). */
	replays?: ReplayQueue;
	/** Where an entry goes when the folder cannot take it (the machine's spare folder); reads consult it too. */
	spare?: JournalMirror;
	/** Each append's bytes (the store prunes the whole folder as it grows). */
	onGrowth?: (bytes: number) => void;
	/** How a durable write is made durable (default: fdatasync; tests hold or count it). */
	sync?: DiskSync;
}

/** Folder of the journal inside the store folder. */
export const JOURNAL_SUBFOLDER = 'journal';
/** The journal's identity, in its folder and next to it: one without the other means the journal was lost. */
const JOURNAL_ID_FILE = '.id';
const STORE_JOURNAL_ID_FILE = '.journal-id';
/** Folders of the cacache journal of earlier versions (moved into the logs on first use, then removed). */
const LEGACY_FOLDERS = ['index-v5', 'content-v2', 'tmp'];
const KEY_PREFIX = 'key:';
const JOB_PREFIX = 'job:';
const MAX_REASON_LENGTH = 300;
/** A compaction's temp file older than this was left by a killed process. */
const TEMP_KEPT_MS = 60 * 60_000;
/** The journal's names in the connection's replay queue (`journal:<entry name>`): a claim's release waits behind them (redisClaims.ts). */
export const JOURNAL_REPLAYS = 'journal:';

export class JobJournal {
	/** The folder of the journal's logs. */
	readonly cacheDir: string;
	private readonly log: JournalLog;
	private readonly now: () => number;
	private readonly faults: StoreFaults;
	private opened?: Promise<void>;
	private markerWritten = false;
	/** Records of this process's jobs still submitting or submitted, to mirror again after the mirror lost them (restarted empty). */
	private readonly unfinished = new Map<string, LogEntry>();
	/** Entries the mirror did not take (away or refusing), put again when it answers again or at the queue's retries; and the unfinished ones each time it answers again. */
	private readonly replays: ReplayQueue;
	/** Per bucket: its size and oldest entry right after this process compacted it (unchanged since: skipped). */
	private readonly compacted = new Map<string, { bytes: number; oldest: number }>();
	/** The highest revision seen of each name (read or written here): the next write of it carries one more. */
	private readonly revisions = new Map<string, number>();

	constructor(
		readonly rootDir: string,
		private readonly options: JobJournalOptions,
	) {
		this.cacheDir = path.join(rootDir, JOURNAL_SUBFOLDER);
		this.log = new JournalLog(this.cacheDir, options.sync);
		this.now = options.now ?? Date.now;
		this.faults = options.faults ?? new StoreFaults(logWarning);
		this.replays = options.replays ?? new ReplayQueue();
		const mirror = options.mirror;
		if (mirror) this.replays.onReturn(() => {
			for (const entry of this.unfinished.values()) if (!this.replays.has(JOURNAL_REPLAYS + entry.name)) this.mirrorLater(mirror, entry);
		});
	}

	/** Right before the POST: the job key is about to be paid for. Also links `jobId` to the key. False on failure. */
	async submitting(key: string, start: JobStart): Promise<boolean> {
		const at = this.now();
		const { jobId, apiStyle, baseUrl, model, apiKeyHash } = start;
		const record: JournalRecord = { jobKey: key, state: 'submitting', jobId, apiStyle, baseUrl, model, apiKeyHash, createdAt: at, updatedAt: at };
		// The record and the job's link share one sync (they sit in different logs). Durable: lost in a power cut, a
		// re-run would find the key as it was before and pay again (the later states are not: see the file's comment).
		return await this.appendRecord(record, { durable: true }, [this.entryOf(JOB_PREFIX + jobId, { jobKey: key })]);
	}

	/** Links another pool job id to `key` (a job served from the store, re-attached, or sharing a flight). */
	link(jobId: string, key: string): Promise<boolean> {
		return this.write([this.entryOf(JOB_PREFIX + jobId, { jobKey: key })]);
	}

	/** The upstream acknowledged the submit. False on failure or when no `submitting` record exists. */
	submitted(key: string, ack: { taskId: string; pollingUrl?: string; cost?: number }): Promise<boolean> {
		return this.advance(key, { state: 'submitted', taskId: ack.taskId, pollingUrl: ack.pollingUrl, cost: ack.cost });
	}

	/** The result is in the result store. */
	stored(key: string): Promise<boolean> {
		return this.advance(key, { state: 'stored', reason: undefined, errorKind: undefined });
	}

	/** Final failure (or: not created upstream); `reason` is redacted (URLs, tokens and the given secrets removed). */
	failed(key: string, reason: string, secrets: readonly string[] = [], errorKind?: string): Promise<boolean> {
		return this.advance(key, { state: 'failed', reason: redact(reason, secrets, MAX_REASON_LENGTH), errorKind });
	}

	/** The latest record of `key`, or undefined (none, unreadable, or older than the TTL). */
	async read(key: string): Promise<JournalRecord | undefined> {
		return (await this.readChecked(key)).record;
	}

	/** The latest record of `key`, and whether damaged lines in its file may have hidden a later one (then a note says so). */
	async readChecked(key: string): Promise<{ record?: JournalRecord; damaged: boolean }> {
		const { value, damaged } = await this.latest(KEY_PREFIX + key);
		if (value === undefined) return { damaged }; // a fresh key (most reads): no failed parse built
		const parsed = recordSchema.safeParse(value);
		return { record: parsed.success ? parsed.data : undefined, damaged };
	}

	/** Resolves a pool job id to its job key and the key's latest record (whose jobId may be a later job's). */
	async findByJobId(jobId: string): Promise<{ jobKey: string; record: JournalRecord } | undefined> {
		const link = jobLinkSchema.safeParse((await this.latest(JOB_PREFIX + jobId)).value);
		if (!link.success) return undefined;
		const record = await this.read(link.data.jobKey);
		return record && { jobKey: link.data.jobKey, record };
	}

	/** The journal's bytes on disk (its logs). */
	async bytes(): Promise<number> {
		try {
			return (await this.log.buckets()).reduce((sum, bucket) => sum + bucket.bytes, await this.log.ahead.bytes());
		} catch {
			return 0;
		}
	}

	/**
	 * Compacts the logs: one line per name, records and job links older than the TTL dropped, and with
	 * `options.drop` the records it picks (latest of a key: they may go before their TTL, the store is over its
	 * size bound) plus the job links to their keys. Only one process may prune a folder at a time (the store's prune
	 * lock). Resolves with how many names went, undefined on failure.
	 */
	async prune(options: { drop?: (record: JournalRecord) => boolean } = {}): Promise<number | undefined> {
		try {
			await this.ready();
			const now = this.now();
			const expired = (time: number) => this.isExpired(time, now);
			await this.log.rotateAhead();
			const buckets = await this.log.buckets();
			const dropKeys = options.drop ? await this.keysToDrop(buckets.map((b) => b.bucket), expired, options.drop) : new Map<string, number>();
			let removed = 0;
			for (const { bucket, bytes } of buckets) {
				const last = this.compacted.get(bucket);
				if (!options.drop && last && last.bytes === bytes && !expired(last.oldest)) continue;
				let oldest = Number.POSITIVE_INFINITY;
				const result = await this.log.compact(bucket, (latest) => {
					const kept = latest.filter((entry) => !expired(entry.time) && !this.dropped(entry, dropKeys));
					removed += latest.length - kept.length;
					for (const entry of kept) oldest = Math.min(oldest, entry.time);
					return kept;
				});
				if (result.damaged > 0) this.noteDamaged(this.log.fileOf(bucket), result.damaged, true);
				this.compacted.set(bucket, { bytes: result.after, oldest });
			}
			await sweepTemporaries(this.cacheDir, TEMP_KEPT_MS, now); // a killed compaction's temp files
			return removed;
		} catch (error) {
			if (codeOf(error) === 'ENOENT') return 0;
			this.faults.fault(describeStoreError('pruning the journal', this.rootDir, error));
			return undefined;
		}
	}

	/**
	 * Whether a compaction drops `entry`: a record of a dropped key only up to the revision that was picked (a key
	 * written again since, e.g. a re-run sending it anew while the prune ran, keeps its new records), a job link of
	 * a dropped key.
	 */
	private dropped(entry: LogEntry, dropKeys: ReadonlyMap<string, number>): boolean {
		if (entry.name.startsWith(KEY_PREFIX)) return (entry.rev ?? 0) <= (dropKeys.get(entry.name.slice(KEY_PREFIX.length)) ?? -1);
		const link = jobLinkSchema.safeParse(entry.value);
		return link.success && dropKeys.has(link.data.jobKey);
	}

	/** The keys whose latest record `drop` picks, with that record's revision (read across every bucket first: a key's links live in others). */
	private async keysToDrop(buckets: string[], expired: (time: number) => boolean, drop: (record: JournalRecord) => boolean): Promise<Map<string, number>> {
		const keys = new Map<string, number>();
		for (const bucket of buckets) {
			for (const entry of latestByName((await this.log.scan(bucket)).entries).values()) {
				if (!entry.name.startsWith(KEY_PREFIX) || expired(entry.time)) continue;
				const record = recordSchema.safeParse(entry.value);
				if (record.success && drop(record.data)) keys.set(record.data.jobKey, entry.rev ?? 0);
			}
		}
		return keys;
	}

	private async advance(key: string, change: Partial<JournalRecord>): Promise<boolean> {
		const previous = await this.read(key);
		if (previous === undefined) return false;
		const record: JournalRecord = { ...previous, ...change, updatedAt: this.now() };
		for (const field of ['reason', 'errorKind', 'taskId', 'pollingUrl', 'cost'] as const) if (record[field] === undefined) delete record[field];
		return await this.appendRecord(record);
	}

	/** Writes `record` as the key's next entry (with `withEntries`, in the same write and sync). */
	private async appendRecord(record: JournalRecord, options: { durable?: boolean } = {}, withEntries: LogEntry[] = []): Promise<boolean> {
		const name = KEY_PREFIX + record.jobKey;
		const entry = this.entryOf(name, record);
		// Before the write: a return of the mirror while it is on its way puts this entry again, never the one before it.
		if (record.state === 'submitting' || record.state === 'submitted') this.unfinished.set(name, entry);
		else this.unfinished.delete(name);
		return await this.write([entry, ...withEntries], options);
	}

	/** The next entry of `name`: one revision past the highest seen of it. */
	private entryOf(name: string, value: unknown): LogEntry {
		const rev = (this.revisions.get(name) ?? 0) + 1;
		this.revisions.set(name, rev);
		return { name, time: this.now(), rev, value };
	}

	/** Writes `entries` (one durable sync for all of them); false on failure (then each is in the spare folder). */
	private async write(all: readonly LogEntry[], options: { durable?: boolean } = {}): Promise<boolean> {
		try {
			await this.ready();
			const bytes = await this.log.appendAll(all, options);
			this.options.onGrowth?.(bytes);
		} catch (error) {
			this.faults.fault(describeStoreError('writing the job journal', this.rootDir, error));
			for (const entry of all) await this.options.spare?.put(entry).catch(() => false); // another process of this machine still reads it
			await this.mirrorAll(all); // and other hosts through the mirror: the newest entry, never an older one still queued
			return false;
		}
		this.faults.recovered();
		await this.mirrorAll(all);
		if (!this.markerWritten) await this.writeMarkers();
		return true;
	}

	/** Each entry to the mirror, or (not taken) into the replay queue. */
	private async mirrorAll(all: readonly LogEntry[]): Promise<void> {
		const mirror = this.options.mirror;
		if (!mirror) return;
		for (const entry of all) {
			// An older entry of the name still queued goes first: replayed while this one is on its way (a retry, a
			// return), it would reach Redis after it and stay there (the mirror keeps the last write).
			this.replays.drop(JOURNAL_REPLAYS + entry.name);
			if (!(await mirror.put(entry).catch(() => false))) this.mirrorLater(mirror, entry);
		}
	}

	/** `entry` to the mirror through the replay queue (replacing what its name had queued there). */
	private mirrorLater(mirror: JournalMirror, entry: LogEntry): void {
		this.replays.put(JOURNAL_REPLAYS + entry.name, async () => await mirror.put(entry));
	}

	private async latest(name: string): Promise<{ value: unknown; damaged: boolean }> {
		const [local, mirrored, spare] = await Promise.all([
			this.readLocal(name),
			this.options.mirror?.get(name).catch(() => undefined),
			this.options.spare?.get(name).catch(() => undefined),
		]);
		for (const entry of [local.entry, mirrored, spare]) {
			if (entry && (entry.rev ?? 0) > (this.revisions.get(entry.name) ?? 0)) this.revisions.set(entry.name, entry.rev ?? 0); // the highest seen
		}
		const newer = [mirrored, spare].reduce<LogEntry | undefined>((best, entry) => laterEntry(entry, best), local.entry);
		return { value: newer && !this.isExpired(newer.time) ? newer.value : undefined, damaged: local.damaged };
	}

	private async readLocal(name: string): Promise<{ entry?: LogEntry; damaged: boolean }> {
		try {
			await this.ready();
			const { entry, damaged, file } = await this.log.latest(name);
			if (damaged > 0) this.noteDamaged(file, damaged, false);
			return { entry, damaged: damaged > 0 };
		} catch (error) {
			const missing = codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR';
			if (!missing) this.faults.fault(describeStoreError('reading the job journal', this.rootDir, error));
			return { damaged: !missing };
		}
	}

	private noteDamaged(file: string, lines: number, dropped: boolean): void {
		const what = dropped ? `${lines} damaged line(s) were dropped from` : `${lines} damaged line(s) in`;
		this.faults.note(
			'journal-damaged',
			`The job journal at ${this.cacheDir} is damaged: ${what} ${path.basename(file)} (cut or changed outside n8n). Stored results are still served; a job whose record was lost cannot be told from a new one and may be sent (and paid) again.`,
		);
	}

	private isExpired(time: number, now = this.now()): boolean {
		return time < now - this.options.ttlMs;
	}

	/** Once per process: notice a lost journal, move a cacache journal of an earlier version into the logs. */
	private ready(): Promise<void> {
		this.opened ??= (async () => {
			await this.checkMarkers().catch(() => undefined);
			await this.moveLegacyJournal().catch((error: unknown) => this.faults.fault(describeStoreError('reading the journal of an earlier version', this.rootDir, error)));
		})();
		return this.opened;
	}

	/** The store folder says it had a journal, but the journal folder does not have it: it was lost (deleted). */
	private async checkMarkers(): Promise<void> {
		const [stored, own] = await Promise.all([readId(path.join(this.rootDir, STORE_JOURNAL_ID_FILE)), readId(path.join(this.cacheDir, JOURNAL_ID_FILE))]);
		if (stored !== undefined && own !== stored) {
			this.faults.note(
				'journal-lost',
				`The job journal at ${this.cacheDir} was lost (deleted or replaced) while the result store kept its results: jobs that were running before are unknown now, and a re-run sends them again (and pays again). Stored results are still served.`,
			);
		}
	}

	private async writeMarkers(): Promise<void> {
		this.markerWritten = true;
		try {
			const own = path.join(this.cacheDir, JOURNAL_ID_FILE);
			const storeMarker = path.join(this.rootDir, STORE_JOURNAL_ID_FILE);
			const id = (await readId(storeMarker)) ?? (await readId(own)) ?? randomUUID();
			if ((await readId(own)) !== id) await fs.writeFile(own, id, { mode: 0o600 });
			if ((await readId(storeMarker)) !== id) await fs.writeFile(storeMarker, id, { mode: 0o600 });
		} catch {
			// the markers only serve the lost-journal warning
		}
	}

	private async moveLegacyJournal(): Promise<void> {
		const legacy = path.join(this.cacheDir, LEGACY_FOLDERS[0]);
		if (!(await fs.stat(legacy).then(() => true, () => false))) return;
		await ensureStoreFolder(this.cacheDir);
		for (const entry of Object.values(await listCacheIndex(this.cacheDir))) {
			if (this.isExpired(entry.time)) continue;
			await this.log.appendAll([{ name: entry.key, time: entry.time, value: entry.metadata }]);
		}
		for (const folder of LEGACY_FOLDERS) await fs.rm(path.join(this.cacheDir, folder), { recursive: true, force: true });
	}
}

/** A marker's id; undefined when it is missing, unreadable or empty. */
const readId = async (file: string): Promise<string | undefined> => (await fs.readFile(file, 'utf8').catch(() => '')).trim() || undefined;
