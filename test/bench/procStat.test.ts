/** The bench's CPU readings from Linux's /proc (bench/procStat.ts): the main thread apart, and the threads by kind. */
import { readFileSync } from 'node:fs';

import { namedThreads, parseStatTimes, splitByThread, statCpuMs, threadsCpuBetween, threadsOf } from '../../bench/procStat';

const onLinux = process.platform === 'linux' ? it : it.skip;

describe('/proc CPU readings', () => {
	it("reads a stat line's user and system time and start time, after a command name with spaces and parentheses", () => {
		// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime priority nice threads itrealvalue starttime …
		const stat = '4242 (node (n8n) main) S 1 4242 4242 0 -1 4194560 91234 0 12 0 1532 287 0 0 20 0 11 0 5000 1000000 25000';
		expect(parseStatTimes(stat)).toEqual({ user: 15_320, system: 2_870, startedAt: 5000 });
	});

	onLinux("reads the main thread's CPU apart from the whole process's, and every live thread with its name", () => {
		const threads = threadsOf(process.pid)!;
		const all = statCpuMs(process.pid);
		expect(all).toBeDefined();
		expect(threads.get(process.pid)!.ms).toBeLessThanOrEqual(all!.user + all!.system + 10); // a tick may pass between the reads
		expect(statCpuMs(2 ** 30)).toBeUndefined(); // no such process
		// The main thread started with the process: field 22 of the process's own stat line.
		const processStart = Number(readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ')[19]);
		expect(threads.get(process.pid)).toEqual({ name: expect.any(String), ms: expect.any(Number), startedAt: processStart });
		expect(threads.size).toBeGreaterThan(1); // V8's and libuv's threads besides the main one
		expect(threadsOf(2 ** 30)).toBeUndefined();
	});

	it('adds up what each kind of thread spent between two readings: main by tid, the helpers by their names', () => {
		const at = (name: string, ms: number, startedAt = 1) => ({ name, ms, startedAt });
		const before = new Map([
			[100, at('MainThread', 1000)],
			[101, at('V8Worker', 200)],
			[102, at('V8Worker', 300)],
			[103, at('libuv-worker', 50)],
			[104, at('SignalInspector', 0)],
			[106, at('libuv-worker', 70)],
		]);
		const after = new Map([
			[100, at('MainThread', 1600)],
			[101, at('V8Worker', 450)],
			[102, at('V8Worker', 400)],
			[103, at('libuv-worker', 80)],
			[104, at('SignalInspector', 10)],
			[105, at('libuv-worker', 20)], // new since the first reading: counted from 0
			[106, at('libuv-worker', 5, 2)], // its tid reused by a thread started since: counted from 0, not -65
		]);
		expect(threadsCpuBetween(100, before, after)).toEqual({ main: 600, helpers: { v8Workers: 350, libuvPool: 55, other: 10 } });
		expect(namedThreads(after)).toBe(true);
		// Node 20 names none of them: all but the main thread are "other".
		const unnamed = (m: typeof before) => new Map([...m].map(([tid, t]) => [tid, { ...t, name: 'node' }]));
		expect(namedThreads(unnamed(after))).toBe(false);
		expect(threadsCpuBetween(100, unnamed(before), unnamed(after))).toEqual({ main: 600, helpers: { v8Workers: 0, libuvPool: 0, other: 415 } });
		// What a batch keeps: the helpers by kind only when the threads are named; nothing without both readings.
		expect(splitByThread(100, before, after)).toEqual({ mainThreadCpuMs: 600, helperThreadsCpuMs: { v8Workers: 350, libuvPool: 55, other: 10 } });
		expect(splitByThread(100, unnamed(before), unnamed(after))).toEqual({ mainThreadCpuMs: 600 });
		expect(splitByThread(100, undefined, after)).toEqual({});
	});
});
