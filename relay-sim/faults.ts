/**
 * Fault registry. A fault applies to every task (or submit request) whose prompt contains the
 * substring it was registered with. setFault with the same substring and the same kind of fault
 * (e.g. two 'submit' status faults) replaces the earlier one; different kinds coexist, so
 * "429 twice, then reset" or "progress statuses, then Content Moderated" can be combined.
 */
import type { Fault, FinalStatus } from './types';

type SubmitStatusFault = Extract<Fault, { on: 'submit'; status: number }>;
type PollStatusFault = Extract<Fault, { on: 'poll'; status: number }>;
type DownloadStatusFault = Extract<Fault, { on: 'download'; status: number }>;
export type DownloadBodyFault = Extract<
	Fault,
	{ truncated: true } | { nonImage: true } | { slowBytesPerSecond: number } | { sizeBytes: number }
>;

interface Entry {
	substring: string;
	fault: Fault;
	kind: string;
	used: number; // submit faults: matching submits answered so far
	usedByTask: Map<string, number>; // poll / download status faults: per task
}

export type SubmitAction =
	| { kind: 'status'; fault: SubmitStatusFault }
	| { kind: 'reset' }
	| { kind: 'hang' };

const FINAL_STATUSES: readonly string[] = ['Request Moderated', 'Content Moderated', 'Error', 'Task not found'];

export function faultKind(fault: Fault): string {
	const keys = ['status', 'reset', 'hang', 'finalStatus', 'progressStatuses', 'pollingUrlHost', 'truncated', 'nonImage',
		'slowBytesPerSecond', 'sizeBytes', 'redirects'];
	const key = keys.find((k) => k in fault);
	if (!key) throw new TypeError(`relay-sim: unknown fault ${JSON.stringify(fault)}`);
	return `${fault.on}:${key}`;
}

function validate(fault: Fault): void {
	const bad = (why: string) => new TypeError(`relay-sim: bad fault ${JSON.stringify(fault)}: ${why}`);
	if ('status' in fault && !(Number.isInteger(fault.status) && fault.status >= 100 && fault.status <= 599)) {
		throw bad('status must be an HTTP status code');
	}
	if ('times' in fault && fault.times !== undefined && !(Number.isInteger(fault.times) && fault.times >= 0)) {
		throw bad('times must be a non-negative integer');
	}
	if ('finalStatus' in fault && !FINAL_STATUSES.includes(fault.finalStatus)) throw bad('unknown finalStatus');
	if ('redirects' in fault && !(Number.isInteger(fault.redirects) && fault.redirects >= 0)) throw bad('redirects');
	if ('slowBytesPerSecond' in fault && !(fault.slowBytesPerSecond > 0)) throw bad('slowBytesPerSecond must be > 0');
	if ('sizeBytes' in fault && !(Number.isInteger(fault.sizeBytes) && fault.sizeBytes > 0)) throw bad('sizeBytes');
}

export class FaultBook {
	private entries: Entry[] = [];

	set(substring: string, fault: Fault): void {
		validate(fault);
		const kind = faultKind(fault);
		const entry: Entry = { substring, fault, kind, used: 0, usedByTask: new Map() };
		const i = this.entries.findIndex((e) => e.substring === substring && e.kind === kind);
		if (i >= 0) this.entries[i] = entry;
		else this.entries.push(entry);
	}

	clear(): void {
		this.entries = [];
	}

	private matching(prompt: string, kind: string): Entry[] {
		return this.entries.filter((e) => e.kind === kind && prompt.includes(e.substring));
	}

	private first<F extends Fault>(prompt: string, kind: string): F | undefined {
		return this.matching(prompt, kind)[0]?.fault as F | undefined;
	}

	/** Consumes one use of a submit status fault, if any applies; else reset / hang. */
	submitAction(prompt: string): SubmitAction | undefined {
		for (const e of this.matching(prompt, 'submit:status')) {
			const fault = e.fault as SubmitStatusFault;
			if (fault.times === undefined || e.used < fault.times) {
				e.used++;
				return { kind: 'status', fault };
			}
		}
		if (this.first(prompt, 'submit:reset')) return { kind: 'reset' };
		if (this.first(prompt, 'submit:hang')) return { kind: 'hang' };
		return undefined;
	}

	pollStatus(prompt: string, taskId: string): PollStatusFault | undefined {
		return this.perTask<PollStatusFault>(prompt, 'poll:status', taskId);
	}

	downloadStatus(prompt: string, taskId: string): DownloadStatusFault | undefined {
		return this.perTask<DownloadStatusFault>(prompt, 'download:status', taskId);
	}

	private perTask<F extends PollStatusFault | DownloadStatusFault>(prompt: string, kind: string, taskId: string): F | undefined {
		for (const e of this.matching(prompt, kind)) {
			const fault = e.fault as F;
			const used = e.usedByTask.get(taskId) ?? 0;
			if (fault.times === undefined || used < fault.times) {
				e.usedByTask.set(taskId, used + 1);
				return fault;
			}
		}
		return undefined;
	}

	finalStatus(prompt: string): FinalStatus | undefined {
		return this.first<Extract<Fault, { finalStatus: FinalStatus }>>(prompt, 'poll:finalStatus')?.finalStatus;
	}

	progressStatuses(prompt: string): string[] {
		return this.first<Extract<Fault, { progressStatuses: string[] }>>(prompt, 'poll:progressStatuses')?.progressStatuses ?? [];
	}

	pollingUrlHost(prompt: string): string | undefined {
		return this.first<Extract<Fault, { pollingUrlHost: string }>>(prompt, 'poll:pollingUrlHost')?.pollingUrlHost;
	}

	redirects(prompt: string): Extract<Fault, { redirects: number }> | undefined {
		return this.first(prompt, 'download:redirects');
	}

	/** The body-shaping download fault (first registered wins when several match). */
	downloadBody(prompt: string): DownloadBodyFault | undefined {
		const kinds = ['download:truncated', 'download:nonImage', 'download:slowBytesPerSecond', 'download:sizeBytes'];
		return this.entries.find((e) => kinds.includes(e.kind) && prompt.includes(e.substring))?.fault as
			| DownloadBodyFault
			| undefined;
	}
}
