import type { IBinaryData, IExecuteFunctions, INodeTypeDescription } from 'n8n-workflow';

import type { JobKind } from '../pool';

/**
 * What a job must leave in the pool for a collector to deliver it. A failed job leaves an
 * error instead; `skipped_error` is a failure the job turned into a result (with its reason).
 */
export interface CollectableResult {
	outcome: 'success' | 'skipped_error';
	/** The upstream task id, when one was created. */
	taskId?: string;
	/** Redacted reason, for `skipped_error`. */
	error?: string;
	errorKind?: string;
	/** True when the result was served from a durable store (no new job); the report counts these. */
	cached?: boolean;
	/** What the job cost, as the API reported it (e.g. credits); null or absent: it did not say. A cached result counts 0. */
	cost?: number | null;
	/** True for a draft (a preview with files of its own to deliver); its slot's row says so. */
	draft?: boolean;
}

/** A slot's files: its result (under the collector's Binary Property) and files that go with it, under their own names. */
export interface SlotFiles {
	result: IBinaryData;
	with?: Record<string, IBinaryData>;
}

/** A task whose job this process's pool does not know (or has forgotten), e.g. after an n8n restart. */
export interface UnknownTask {
	jobId: string;
	itemIndex: number;
}

/** How the collector names itself (`description`: its line in n8n's node list) and what it collects. */
export interface CollectorIdentity extends Pick<INodeTypeDescription, 'name' | 'displayName' | 'description' | 'icon'> {
	defaultName: string;
	/** What one slot delivers, e.g. { one: 'image', many: 'images' }. */
	noun: { one: string; many: string };
	/** The submit node(s) whose tasks it takes, for the "not a task" hint. */
	submitNodeName: string;
}

/** One collector node type: the job kind it collects and how a slot becomes a binary. */
export interface CollectorSpec<Result extends CollectableResult> {
	identity: CollectorIdentity;
	/** Picks the pool and the task kind accepted. */
	kind: JobKind;
	/** The most tasks one run takes (not tied to the pool's concurrency). */
	maxSlots: number;
	/** The files of a finished job (success or skipped_error); `fileBase` is e.g. "slot-03". Undefined: the slot carries none. */
	toBinary(ctx: IExecuteFunctions, result: Result, fileBase: string): Promise<SlotFiles | undefined>;
	/** In Placeholder mode, a failed slot's binary and what it is (for the Failure Mode help); none: json only. */
	failedSlot?: { describe: string; toBinary(ctx: IExecuteFunctions, fileBase: string): Promise<IBinaryData> };
	/** Removes secrets from error text that did not come redacted from the job. */
	redact(text: string): string;
	/** Credentials the collector node declares (optional ones let `resolveUnknownJob` reach the API). */
	credentials?: INodeTypeDescription['credentials'];
	/**
	 * Resolves a task the pool does not know or has forgotten (n8n restarted, "Retry execution" of the
	 * collector): its result, or undefined to keep the unknown/expired failure. A rejection fails the slot
	 * with the error's (redacted) message and kind. Must honour `signal`.
	 */
	resolveUnknownJob?(ctx: IExecuteFunctions, task: UnknownTask, signal: AbortSignal): Promise<Result | undefined>;
	/** Notes for the report, read once after the slots are final (e.g. "the result store could not be used"). */
	reportWarnings?(): string[];
	/**
	 * More report fields and notes about the batch's jobs (`jobIds`: every slot's job), read once after the slots are
	 * final: e.g. what the account spent in its window and its limits. Must not throw (a failure is a note).
	 */
	reportExtras?(ctx: IExecuteFunctions, jobIds: readonly string[]): Promise<{ fields: Record<string, unknown>; warnings: string[] }>;
}
