import { createPoolSet, type JobContext, type PoolConfig, type PoolSet } from '../../src/pool';

export interface Deferred<T> {
	promise: Promise<T>;
	resolve(value: T): void;
	reject(reason: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
	let resolve!: (value: T) => void;
	let reject!: (reason: unknown) => void;
	const promise = new Promise<T>((res, rej) => {
		resolve = res;
		reject = rej;
	});
	return { promise, resolve, reject };
}

/** Lets every pending promise callback run (one macrotask turn); not a sleep. */
export const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A job the test finishes by hand; `started` records start order and each job's context. */
export class ManualJobs {
	readonly started: string[] = [];
	readonly contexts = new Map<string, JobContext>();
	/** Jobs started and not yet settled, and the most there ever were at once. */
	active = 0;
	peak = 0;
	private readonly controls = new Map<string, Deferred<string>>();

	job(name: string) {
		const control = deferred<string>();
		this.controls.set(name, control);
		return (ctx: JobContext) => {
			this.started.push(name);
			this.contexts.set(name, ctx);
			this.peak = Math.max(this.peak, ++this.active);
			const settled = () => void this.active--;
			control.promise.then(settled, settled);
			return control.promise;
		};
	}

	resolve(name: string, value = `result of ${name}`): void {
		this.control(name).resolve(value);
	}

	reject(name: string, reason: unknown): void {
		this.control(name).reject(reason);
	}

	/** A job that rejects with its signal's reason once cancelled. */
	abortable(name: string) {
		const run = this.job(name);
		return (ctx: JobContext) => {
			ctx.signal.addEventListener('abort', () => this.reject(name, ctx.signal.reason), { once: true });
			return run(ctx);
		};
	}

	private control(name: string): Deferred<string> {
		const control = this.controls.get(name);
		if (!control) throw new Error(`no job named ${name}`);
		return control;
	}
}

export function smallConfig(overrides: Partial<PoolConfig> = {}): PoolConfig {
	return {
		image: { workers: 2, pending: 1 },
		video: { workers: 1, pending: 0 },
		resultTtlMs: 60_000,
		resultMaxBytes: 1_000,
		...overrides,
	};
}

/** An isolated pool set with a hand-driven clock; the registry's warnings are kept in `warnings`. */
export function testPoolSet(
	overrides: Partial<PoolConfig> = {},
): PoolSet & { clock: { now: number }; warnings: string[] } {
	const clock = { now: 1_000_000 };
	const warnings: string[] = [];
	const set = createPoolSet(smallConfig(overrides), { now: () => clock.now, warn: (message) => warnings.push(message) });
	return { ...set, clock, warnings };
}
