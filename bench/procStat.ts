/** CPU times of a process or one of its threads from Linux's /proc (the bench's readings of n8n and of its own workers). */
import { readdirSync, readFileSync } from 'node:fs';

/**
 * utime and stime of a `/proc/<pid>/stat` (or `/proc/<pid>/task/<tid>/stat`) line, ms: fields 14 and 15 of stat(5),
 * and its start time (field 22, clock ticks since boot: a tid reused by a new thread has another),
 * counted after the command name (which may hold spaces and parentheses: the fields start after its last `)`), in
 * USER_HZ ticks (100 a second on x86 and arm64). The kernel splits a process's time into user and system by sampled
 * ticks, so the system part of a second's window is an estimate to within some tens of ms; either is counted in
 * whole ticks (10 ms).
 */
export function parseStatTimes(stat: string): { user: number; system: number; startedAt: number } {
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10, startedAt: Number(fields[19]) };
}

/** utime and stime, ms, of process `pid` (all its threads, those ended too); undefined where /proc cannot be read (not Linux, gone). */
export function statCpuMs(pid: number | undefined): { user: number; system: number } | undefined {
	if (pid === undefined) return undefined;
	try {
		const { user, system } = parseStatTimes(readFileSync(`/proc/${pid}/stat`, 'utf8'));
		return { user, system };
	} catch {
		return undefined;
	}
}

/** Where a process's CPU ran outside its main thread, by kind of thread, ms (Node 24 names its threads, as seen here; Node 20 leaves them all `node`). */
export interface HelperThreadsCpuMs {
	/** V8's platform workers (`V8Worker`): concurrent marking and sweeping, background compilation. */
	v8Workers: number;
	/** libuv's thread pool (`libuv-worker`): file-system calls, DNS, crypto done off the main thread. */
	libuvPool: number;
	/** Every other thread (all of them when the threads are not named). */
	other: number;
}

/** One live thread as /proc showed it: its name, its CPU (user + system, ms) and when it started (clock ticks since boot: a reused tid has another). */
export interface ThreadReading {
	name: string;
	ms: number;
	startedAt: number;
}

/** Every live thread of `pid` by tid; undefined where /proc cannot be read. */
export function threadsOf(pid: number | undefined): Map<number, ThreadReading> | undefined {
	if (pid === undefined) return undefined;
	try {
		const threads = new Map<number, ThreadReading>();
		for (const tid of readdirSync(`/proc/${pid}/task`).map(Number)) {
			try {
				const { user, system, startedAt } = parseStatTimes(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
				threads.set(tid, { name: readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim(), ms: user + system, startedAt });
			} catch {
				// the thread ended meanwhile: its time is in the process's total
			}
		}
		return threads;
	} catch {
		return undefined;
	}
}

/** True when the threads carry Node's names (Node 24; not Node 20), so that {@link threadsCpuBetween}'s kinds mean something. */
export function namedThreads(threads: ReadonlyMap<number, ThreadReading>): boolean {
	return [...threads.values()].some((t) => t.name === 'V8Worker' || t.name === 'libuv-worker');
}

/**
 * The CPU the main thread (tid = `pid`) and each kind of other thread spent between two readings of
 * {@link threadsOf}, ms, to the 10 ms of a tick. A thread new since `before` (or a tid reused by a new thread) counts
 * from 0; one ended since is not counted: its time shows in the process's total only.
 */
export function threadsCpuBetween(pid: number, before: ReadonlyMap<number, ThreadReading>, after: ReadonlyMap<number, ThreadReading>): { main: number; helpers: HelperThreadsCpuMs } {
	let main = 0;
	const helpers: HelperThreadsCpuMs = { v8Workers: 0, libuvPool: 0, other: 0 };
	for (const [tid, { name, ms, startedAt }] of after) {
		const earlier = before.get(tid);
		const spent = ms - (earlier !== undefined && earlier.startedAt === startedAt ? earlier.ms : 0);
		if (tid === pid) main += spent;
		else if (name === 'V8Worker') helpers.v8Workers += spent;
		else if (name === 'libuv-worker') helpers.libuvPool += spent;
		else helpers.other += spent;
	}
	return { main, helpers };
}

/** A batch's CPU by thread: the main thread's (JavaScript and the GC's pauses), and the other threads' by kind where Node names them. */
export interface ThreadSplit {
	mainThreadCpuMs?: number;
	helperThreadsCpuMs?: HelperThreadsCpuMs;
}

/**
 * What the bench keeps of two readings of {@link threadsOf}: the main thread's CPU, and the other threads' by kind
 * when the threads carry Node's names; nothing when either reading failed.
 */
export function splitByThread(pid: number | undefined, before: ReturnType<typeof threadsOf>, after: ReturnType<typeof threadsOf>): ThreadSplit {
	if (pid === undefined || before === undefined || after === undefined) return {};
	const { main, helpers } = threadsCpuBetween(pid, before, after);
	return { mainThreadCpuMs: main, ...(namedThreads(after) ? { helperThreadsCpuMs: helpers } : {}) };
}
