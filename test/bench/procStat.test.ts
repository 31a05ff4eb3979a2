/** The bench's CPU readings from Linux's /proc (bench/procStat.ts): the main thread apart, and the threads by kind. */
import { namedThreads, statCpuMs, threadsCpuBetween, threadsOf } from '../../bench/procStat';

const onLinux = process.platform === 'linux' ? it : it.skip;

describe('/proc CPU readings', () => {
	onLinux("reads the main thread's CPU apart from the whole process's, and every live thread with its name", () => {
		const main = statCpuMs(process.pid, process.pid);
		const all = statCpuMs(process.pid);
		expect(main).toBeDefined();
		expect(all).toBeDefined();
		expect(main!.user + main!.system).toBeLessThanOrEqual(all!.user + all!.system);
		expect(statCpuMs(process.pid, 2 ** 30)).toBeUndefined(); // no such thread
		const threads = threadsOf(process.pid)!;
		expect(threads.get(process.pid)).toEqual({ name: expect.any(String), ms: expect.any(Number), startedAt: expect.any(Number) });
		expect(Number.isFinite(threads.get(process.pid)!.startedAt)).toBe(true);
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
	});
});
