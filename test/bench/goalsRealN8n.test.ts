/**
 * The real-n8n scenario's goals (bench/goalsRealN8n.ts): each shape's median against its target (the long shape also against
 * its polls per job), every supported n8n version listed, and a version a run did not measure is a MISS that says so.
 */
import { realN8nGoals } from '../../bench/goalsRealN8n';
import { realN8nBreakdownTables, realN8nCpuBatchesTable } from '../../bench/reportRealN8n';
import type { CriticalPath } from '../../bench/makespanBreakdown';
import { ENGINE_DRIVER, n8nDriver, REAL_N8N_SHAPES, type RealN8nScenario } from '../../bench/scenarios/realN8n';
import { N8N_MATRIX, NEWEST_N8N, OLDEST_N8N } from '../../scripts/n8n/versions';

function path(ratio: number, pollsPerJob: number): CriticalPath {
	const slowestMs = 10_000;
	const zero = { beforeSubmitMs: 0, submitNodeMs: 0, submitTripMs: 0, detectionLagMs: 0, pollToDownloadMs: 0, downloadMs: 0, afterDownloadMs: 0, handOverMs: 0, afterCollectMs: 0, slackMs: 0, submitExecutionMs: 0, meanDetectionLagMs: 0, maxDetectionLagMs: 0 };
	return { ...zero, wallMs: ratio * slowestMs, slowestMs, ratio, latencyMs: slowestMs, detectionLagMs: (ratio - 1) * slowestMs, pollsPerJob };
}

/** The oldest version measured: every shape at `ratio` with `polls` polls per job; the engine a little better. */
function scenario(ratio: number, polls: number): RealN8nScenario {
	const drivers = (p: CriticalPath) => [
		{ driver: ENGINE_DRIVER, runs: [{ path: path(ratio - 0.01, polls) }], median: path(ratio - 0.01, polls), medianCpuMs: 900 },
		{ driver: n8nDriver(OLDEST_N8N.n8n), runs: [{ path: p }], median: p, medianCpuMs: 1200 },
	];
	return {
		ranges: { short: { min: 1500, max: 3500 }, long: { min: 12_000, max: 20_000 } },
		runs: 1,
		versions: [OLDEST_N8N.n8n],
		servers: [{ version: OLDEST_N8N.n8n, nodeVersion: '20', setupMs: 1, startupMs: 1 }],
		cold: [],
		shapes: REAL_N8N_SHAPES.map((shape) => ({ shape, drivers: drivers(path(ratio, polls)) })),
		buildMs: 1,
		durationMs: 1,
		loadAverage: { atStart: [0, 0, 0], atEnd: [0, 0, 0] },
		errors: [],
	};
}

const byId = (goals: ReturnType<typeof realN8nGoals>) => Object.fromEntries(goals.map((g) => [g.id, g]));

describe('real-n8n goals', () => {
	it('pass a shape whose median meets its target; the long shape also needs ≤ 4 polls per job', () => {
		const goals = byId(realN8nGoals(scenario(1.01, 3), 'oldest'));
		const v = OLDEST_N8N.n8n;
		expect([goals[`real-a/${v}`].result, goals[`real-b/${v}`].result, goals[`real-c/${v}`].result]).toEqual(['PASS', 'PASS', 'PASS']);
		const pollsMiss = byId(realN8nGoals(scenario(1.01, 4.5), 'oldest'));
		expect([pollsMiss[`real-a/${v}`].result, pollsMiss[`real-c/${v}`].result]).toEqual(['PASS', 'MISS']);
		const slow = byId(realN8nGoals(scenario(1.08, 3), 'oldest'));
		expect([slow[`real-a/${v}`].result, slow[`real-b/${v}`].result, slow[`real-c/${v}`].result]).toEqual(['MISS', 'PASS', 'MISS']);
		expect(slow[`real-a/${v}`].measured).toMatch(/^1\.080× median of 1 .*engine, same shape, same minutes: 1\.070×/);
	});

	it('lists every supported version: one the run did not measure is a MISS that says so', () => {
		const goals = realN8nGoals(scenario(1.01, 3), 'oldest');
		for (const { n8n } of N8N_MATRIX) for (const shape of REAL_N8N_SHAPES) expect(goals.map((g) => g.id)).toContain(`${shape.id}/${n8n}`);
		const newest = byId(goals)[`real-a/${NEWEST_N8N.n8n}`];
		expect(newest).toMatchObject({ result: 'MISS', measured: 'not measured in this run (--real-n8n=oldest)' });
		const off = realN8nGoals(undefined, 'off');
		expect(off.every((g) => g.result === 'MISS' && /--real-n8n=off/.test(g.measured))).toBe(true);
	});

	it("n8n's process CPU per job in the short 1 MiB batches: ≤ 25 ms passes, more misses; every supported version has the row", () => {
		const v = OLDEST_N8N.n8n;
		const r = scenario(1.01, 3); // n8n's median batch: 1,200 ms of CPU (40 ms a job), the engine's 900 ms
		expect(byId(realN8nGoals(r, 'oldest'))[`real-cpu/${v}`]).toMatchObject({ result: 'MISS', measured: "40.0 ms per job (median batch of 1: 1200 ms); the engine's worker, same batches: 30.0 ms per job", target: '≤ 25 ms per job' });
		r.shapes[0].drivers[1].medianSystemCpuMs = 450; // results that have the system part: it is shown beside the total
		r.shapes[0].drivers[0].medianSystemCpuMs = 200;
		expect(byId(realN8nGoals(r, 'oldest'))[`real-cpu/${v}`].measured).toBe(
			"40.0 ms per job (median batch of 1: 1200 ms; system (kernel) time 450 ms a batch, median of the batches); the engine's worker, same batches: 30.0 ms per job; system (kernel) time 200 ms a batch, median of the batches",
		);
		for (const shape of r.shapes) for (const driver of shape.drivers) driver.medianCpuMs = shape.shape.id === 'real-a' ? 750 : 99_000; // only real-a's batches count
		expect(byId(realN8nGoals(r, 'oldest'))[`real-cpu/${v}`]).toMatchObject({ result: 'PASS', measured: expect.stringMatching(/^25\.0 ms per job/) });
		expect(byId(realN8nGoals(r, 'oldest'))[`real-cpu/${NEWEST_N8N.n8n}`]).toMatchObject({ result: 'MISS', measured: 'not measured in this run (--real-n8n=oldest)' });
		r.shapes[0].drivers[1].medianCpuMs = NaN; // the batches ran, their CPU was not read
		expect(byId(realN8nGoals(r, 'oldest'))[`real-cpu/${v}`]).toMatchObject({ result: 'MISS', measured: 'not measured: its CPU was not measured in this run' });
	});

	it('a version that failed to start is a MISS naming the failure', () => {
		const r = scenario(1.01, 3);
		r.versions.push(NEWEST_N8N.n8n);
		r.servers.push({ version: NEWEST_N8N.n8n, error: 'n8n start exited (1)' });
		expect(byId(realN8nGoals(r, 'both'))[`real-b/${NEWEST_N8N.n8n}`]).toMatchObject({ result: 'MISS', measured: 'not measured: n8n start exited (1)' });
		expect(byId(realN8nGoals(r, 'both'))[`real-cpu/${NEWEST_N8N.n8n}`]).toMatchObject({ result: 'MISS', measured: 'not measured: n8n start exited (1)' });
	});

	it("the breakdown tables show the batches' system time only for results that have it", () => {
		const r = scenario(1.01, 3);
		const rowOf = (text: string) => text.split('\n').find((line) => line.includes('system (kernel) time'));
		expect(realN8nBreakdownTables(r).map(rowOf)).toEqual([undefined, undefined, undefined]);
		r.shapes[0].drivers[1].medianSystemCpuMs = 450;
		expect(rowOf(realN8nBreakdownTables(r)[0])).toMatch(/^\|\s+system \(kernel\) time, median of the batches\s+\| n\/a\s+\| 450 ms\s+\|$/);
	});

	it("shows the main thread's part and the GC pauses where the results have them: in the real-cpu row, the breakdown and batch by batch", () => {
		const v = OLDEST_N8N.n8n;
		const r = scenario(1.01, 3);
		expect(realN8nCpuBatchesTable(r)).toBeUndefined(); // results from before: no such reading
		expect(realN8nBreakdownTables(r)[0]).not.toMatch(/main thread/);
		const n8n = r.shapes[0].drivers[1];
		n8n.runs = [
			{ path: n8n.median, cpuMs: 900, mainThreadCpuMs: 600, gc: { pauseMs: 20, major: 0, minor: 5, other: 0 } },
			{ path: n8n.median, cpuMs: 1500, mainThreadCpuMs: 800, helperThreadsCpuMs: { v8Workers: 500, libuvPool: 150, other: 40 }, gc: { pauseMs: 70, major: 1, minor: 4, other: 1 } },
			{ path: n8n.median, cpuMs: 1200, mainThreadCpuMs: 700 },
		];
		n8n.medianMainThreadCpuMs = 700;
		n8n.medianGcPauseMs = 45;
		expect(byId(realN8nGoals(r, 'oldest'))[`real-cpu/${v}`].measured).toBe(
			"40.0 ms per job (median batch of 3: 1200 ms; main thread 700 ms a batch (the rest on other threads); GC pauses 45 ms a batch, medians; a full GC in 1 of 2 batches); the engine's worker, same batches: 30.0 ms per job",
		);
		const rowOf = (text: string, name: string) => text.split('\n').find((line) => line.includes(name));
		expect(rowOf(realN8nBreakdownTables(r)[0], 'on the main thread')).toMatch(/\| n\/a\s+\| 700 ms\s+\|$/);
		expect(rowOf(realN8nBreakdownTables(r)[0], 'GC pauses')).toMatch(/\| n\/a\s+\| 45 ms\s+\|$/);
		const rows = realN8nCpuBatchesTable(r)!
			.split('\n')
			.slice(2)
			.map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()));
		expect(rows).toEqual([
			[ENGINE_DRIVER, '1', 'n/a', 'n/a', 'n/a', '—', '—', 'n/a', 'n/a'], // no readings
			[`n8n ${v}`, '1', '900 ms', '600 ms', '300 ms', '—', '—', '20 ms', '0'],
			[`n8n ${v}`, '2', '1500 ms', '800 ms', '700 ms', '500 ms', '150 ms', '70 ms', '1'], // named threads (Node 24)
			[`n8n ${v}`, '3', '1200 ms', '700 ms', '500 ms', '—', '—', 'n/a', 'n/a'],
		]);
	});
});
