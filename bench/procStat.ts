/** CPU times of a process or one of its threads from Linux's /proc (the bench's readings of n8n and of its own workers). */
import { readdirSync, readFileSync } from 'node:fs';

/**
 * utime and stime of a `/proc/<pid>/stat` (or `/proc/<pid>/task/<tid>/stat`) line, ms: fields 14 and 15 of stat(5),
 * counted after the command name (which may hold spaces and parentheses: the fields start after its last `)`), in
 * USER_HZ ticks (100 a second on x86 and arm64). The kernel splits a process's time into user and system by sampled
 * ticks, so the system part of a second's window is an estimate to within some tens of ms.
 */
export function parseStatTimes(stat: string): { user: number; system: number } {
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

/**
 * utime and stime, ms, of process `pid` (all its threads, those ended too), or with `tid` of that one thread
 * (`tid` = `pid`: the main thread, where JavaScript runs); undefined where /proc cannot be read (not Linux, gone).
 */
export function statCpuMs(pid: number | undefined, tid?: number): { user: number; system: number } | undefined {
	if (pid === undefined) return undefined;
	try {
		return parseStatTimes(readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8'));
	} catch {
		return undefined;
	}
}

/** Where a process's CPU ran, by thread, ms: Node 22+ names its threads (Node 20 leaves them all `node`). */
export interface ThreadsCpuMs {
	/** The main thread (tid = pid): JavaScript, and the GC's pauses. */
	main: number;
	/** V8's platform workers (`V8Worker`): concurrent marking and sweeping, background compilation. */
	v8Workers: number;
	/** libuv's thread pool (`libuv-worker`): file-system calls, DNS, crypto done off the main thread. */
	libuvPool: number;
	/** Every other thread, or all of them when the threads are not named. */
	other: number;
}

/** CPU (user + system) of each live thread of `pid` by its tid, with its name; undefined where /proc cannot be read. */
export function threadsOf(pid: number | undefined): Map<number, { name: string; ms: number }> | undefined {
	if (pid === undefined) return undefined;
	try {
		const threads = new Map<number, { name: string; ms: number }>();
		for (const tid of readdirSync(`/proc/${pid}/task`).map(Number)) {
			try {
				const { user, system } = parseStatTimes(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
				threads.set(tid, { name: readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim(), ms: user + system });
			} catch {
				// the thread ended meanwhile: its time is in the process's total
			}
		}
		return threads;
	} catch {
		return undefined;
	}
}

/**
 * The CPU each kind of thread of `pid` spent between two readings of {@link threadsOf} (a thread new since `before`
 * counts from 0; one ended since is not counted: its time shows in the process's total only).
 */
export function threadsCpuBetween(pid: number, before: ReadonlyMap<number, { name: string; ms: number }>, after: ReadonlyMap<number, { name: string; ms: number }>): ThreadsCpuMs {
	const sum: ThreadsCpuMs = { main: 0, v8Workers: 0, libuvPool: 0, other: 0 };
	for (const [tid, { name, ms }] of after) {
		const spent = ms - (before.get(tid)?.ms ?? 0);
		if (tid === pid) sum.main += spent;
		else if (name === 'V8Worker') sum.v8Workers += spent;
		else if (name === 'libuv-worker') sum.libuvPool += spent;
		else sum.other += spent;
	}
	return sum;
}
