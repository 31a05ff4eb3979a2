/** The bench's CPU readings from Linux's /proc (bench/procStat.ts): the main thread apart, and the threads by kind. */
import { statCpuMs, threadsCpuBetween, threadsOf } from '../../bench/procStat';

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
		expect(threads.get(process.pid)).toEqual({ name: expect.any(String), ms: expect.any(Number) });
		expect(threads.size).toBeGreaterThan(1); // V8's and libuv's threads besides the main one
		expect(threadsOf(2 ** 30)).toBeUndefined();
	});

	it('adds up what each kind of thread spent between two readings: main by tid, the helpers by their names', () => {
		const before = new Map([
			[100, { name: 'MainThread', ms: 1000 }],
			[101, { name: 'V8Worker', ms: 200 }],
			[102, { name: 'V8Worker', ms: 300 }],
			[103, { name: 'libuv-worker', ms: 50 }],
			[104, { name: 'SignalInspector', ms: 0 }],
		]);
		const after = new Map([
			[100, { name: 'MainThread', ms: 1600 }],
			[101, { name: 'V8Worker', ms: 450 }],
			[102, { name: 'V8Worker', ms: 400 }],
			[103, { name: 'libuv-worker', ms: 80 }],
			[104, { name: 'SignalInspector', ms: 10 }],
			[105, { name: 'libuv-worker', ms: 20 }], // new since the first reading: counted from 0
		]);
		expect(threadsCpuBetween(100, before, after)).toEqual({ main: 600, v8Workers: 350, libuvPool: 50, other: 10 });
		// Node 20 names none of them: all but the main thread are "other".
		const unnamed = (m: typeof before) => new Map([...m].map(([tid, t]) => [tid, { ...t, name: 'node' }]));
		expect(threadsCpuBetween(100, unnamed(before), unnamed(after))).toEqual({ main: 600, v8Workers: 0, libuvPool: 0, other: 410 });
	});
});
