/**
 * Task store. A task's state is computed from timestamps when it is polled (no per-task timers):
 * it is Ready once `createdAt + latencyMs` has passed and any progress statuses were shown.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { DraftOrigin } from './draftCache';
import type { FaultBook } from './faults';
import type { ImageSize } from './imageSize';
import { increment } from './log';
import { uniformFor } from './prng';
import type { ApiStyle, LatencySpec, SimLog } from './types';

export type TaskModel = 'image' | 'video';

export interface Task {
	id: string;
	prompt: string;
	model: TaskModel;
	style: ApiStyle;
	createdAt: number;
	latencyMs: number;
	progressShown: number; // progress-status polls answered so far
	progressDoneAt?: number; // when the last progress status was shown
	reported?: string; // final status once a poll reported it
	sig: string; // the sample URL's signature
	sampleExpiresAt?: number; // set when Ready is first reported
	cost: number; // credits the task costs (relay-sim/prices.ts), whether or not the answers report it
	imageSize?: ImageSize; // an image task's picture size, from its submit (imageSize.ts)
	jpeg?: boolean; // a FLUX.2 task that asked for output_format jpeg: its file is a JPEG (jpeg.ts)
	draft?: DraftOrigin; // a FLUX 3 Video draft: what its draft cache says (draftCache.ts)
	enhancedFrom?: string; // a draft_enhance task: the id of the draft it renders at full quality
}

/** What a task is beyond its prompt and model (see Task). */
export type TaskExtras = Partial<Pick<Task, 'cost' | 'imageSize' | 'jpeg' | 'enhancedFrom'>> & { draft?: Omit<DraftOrigin, 'task'> };

export type TaskView =
	| { state: 'progress'; status: string; progress: number }
	| { state: 'pending'; progress: number }
	| { state: 'final'; status: string; readyAt: number };

export class TaskStore {
	readonly byId = new Map<string, Task>();
	private readonly active = new Set<Task>();
	private readonly acceptedByPrompt = new Map<string, number>();
	private latency: LatencySpec = 0;

	constructor(
		private readonly faults: FaultBook,
		private readonly log: SimLog,
		private readonly now: () => number,
	) {}

	setLatency(latency: LatencySpec | undefined): void {
		const spec = latency ?? 0;
		if (typeof spec === 'number' && !(spec >= 0)) throw new RangeError('relay-sim: latency must be >= 0');
		if (typeof spec === 'object' && !(spec.min >= 0 && spec.max >= spec.min)) {
			throw new RangeError('relay-sim: latency jitter needs 0 <= min <= max');
		}
		this.latency = spec;
	}

	private latencyFor(prompt: string): number {
		const spec = this.latency;
		if (typeof spec === 'number') return spec;
		if (typeof spec === 'function') return Math.max(0, Number(spec(prompt)) || 0);
		// deterministic per (seed, prompt, nth task of that prompt), whatever the arrival order
		const nth = increment(this.acceptedByPrompt, prompt);
		return uniformFor(`${spec.seed ?? 0}\u0000${prompt}\u0000${nth}`, spec.min, spec.max);
	}

	/** A new task: from now on it is paid (`cost` credits are added to the log's `charged`); `imageSize`: an image task's picture size. */
	create(prompt: string, style: ApiStyle, model: TaskModel = 'image', extra: TaskExtras = {}): Task {
		const { cost = 0, imageSize, jpeg, draft, enhancedFrom } = extra;
		const createdAt = this.now();
		const id = randomUUID(); // uuid-shaped like BFL's ids
		const task: Task = {
			id,
			prompt,
			model,
			style,
			createdAt,
			latencyMs: this.latencyFor(prompt),
			progressShown: 0,
			sig: randomBytes(24).toString('base64url'),
			cost,
			...(imageSize ? { imageSize } : {}),
			...(jpeg ? { jpeg } : {}),
			...(draft ? { draft: { task: id, ...draft } } : {}),
			...(enhancedFrom ? { enhancedFrom } : {}),
		};
		this.log.charged += cost;
		this.byId.set(task.id, task);
		this.active.add(task);
		this.log.tasks.set(task.id, { prompt, createdAt, latencyMs: task.latencyMs, style, ...(draft ? { draft: true } : {}), ...(enhancedFrom ? { enhancedFrom } : {}) });
		this.log.peakActiveTasks = Math.max(this.log.peakActiveTasks, this.active.size);
		if (model === 'video') this.log.peakActiveVideoTasks = Math.max(this.log.peakActiveVideoTasks, this.activeCount('video'));
		return task;
	}

	/** Tasks submitted and not yet final, now (of one model, when given). */
	activeCount(model?: TaskModel): number {
		const now = this.now();
		for (const task of this.active) {
			if (this.isFinal(task, now)) this.active.delete(task);
		}
		if (model === undefined) return this.active.size;
		let n = 0;
		for (const task of this.active) if (task.model === model) n++;
		return n;
	}

	private readyTime(task: Task): number {
		return Math.max(task.createdAt + task.latencyMs, task.progressDoneAt ?? 0);
	}

	private isFinal(task: Task, now: number): boolean {
		if (task.reported) return true;
		if (task.progressShown < this.faults.progressStatuses(task.prompt).length) return false;
		return now >= this.readyTime(task);
	}

	/** Advance the task for one poll and say what to answer. */
	poll(task: Task): TaskView {
		const now = this.now();
		const progress = this.faults.progressStatuses(task.prompt);
		if (!task.reported && task.progressShown < progress.length) {
			const status = progress[task.progressShown++];
			if (task.progressShown === progress.length) task.progressDoneAt = now;
			return { state: 'progress', status, progress: fraction(task.progressShown, progress.length + 1) };
		}
		const readyAt = this.readyTime(task);
		if (!task.reported && now < readyAt) {
			return { state: 'pending', progress: fraction(now - task.createdAt, readyAt - task.createdAt) };
		}
		if (!task.reported) {
			task.reported = this.faults.finalStatus(task.prompt) ?? 'Ready';
			this.active.delete(task);
			const entry = this.log.tasks.get(task.id);
			if (entry) {
				entry.finalStatus = task.reported;
				entry.reportedAt = now;
				if (task.reported === 'Ready') entry.readyAt = readyAt;
			}
		}
		return { state: 'final', status: task.reported, readyAt };
	}

	/** Forget every task (polls of old ids answer Task not found) and restart the jitter sequence. */
	clear(): void {
		this.byId.clear();
		this.active.clear();
		this.acceptedByPrompt.clear();
	}
}

function fraction(done: number, total: number): number {
	return total <= 0 ? 1 : Math.min(1, Math.max(0, Math.round((done / total) * 100) / 100));
}
