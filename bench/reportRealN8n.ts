/**
 * The real-n8n scenario's tables (a real n8n beside the engine): per shape, the median ratio and polls per job of each driver
 * and where the time above the slowest job went; the cold batches. Plain text tables that are also markdown, so
 * `npm run bench`, bench/realN8nBench.ts and bench/readmeTables.ts (from results.json) print the same.
 */
import { fixed, ms, s, table } from './format';
import { EXCESS_PARTS, excessMs } from './makespanBreakdown';
import { REAL_N8N_SHAPES, type MeasuredBatch, type RealN8nScenario } from './scenarios/realN8n';
import { median } from './stats';

const sizeText = (size: string) => size.replace('m', ' MiB');

/** Driver × shape: median makespan ÷ slowest job (runs), polls per job. */
export function realN8nSummaryTable(r: RealN8nScenario): string {
	const drivers = [...new Set(r.shapes.flatMap((shape) => shape.drivers.map((d) => d.driver)))];
	const header = ['30 jobs', ...r.shapes.map(({ shape }) => `${fixed(r.ranges[shape.range].min / 1000, 1)}–${fixed(r.ranges[shape.range].max / 1000, 1)} s, ${sizeText(shape.size)} (goal ${targetOf(shape.id)})`)];
	const rows = drivers.map((driver) => [
		driver,
		...r.shapes.map((shape) => {
			const d = shape.drivers.find((x) => x.driver === driver);
			if (!d) return '—';
			return `${fixed(d.median.ratio, 3)}× (${d.runs.map((run) => fixed(run.path.ratio, 3)).join(', ')}); ${fixed(d.median.pollsPerJob, 1)} polls/job`;
		}),
	]);
	return table(header, rows);
}

function targetOf(id: string): string {
	const shape = REAL_N8N_SHAPES.find((sh) => sh.id === id);
	if (!shape) return '?';
	return `≤ ${shape.target}×${'pollsTarget' in shape ? `, ≤ ${shape.pollsTarget} polls/job` : ''}`;
}

/** Per shape: each part of the last-finishing job's path (medians, ms), per driver. */
export function realN8nBreakdownTables(r: RealN8nScenario): string[] {
	return r.shapes.map(({ shape, drivers }) => {
		const header = [`${shape.id}: ${shape.range} ${sizeText(shape.size)}, medians`, ...drivers.map((d) => d.driver)];
		const rows: string[][] = [
			['makespan ÷ slowest job', ...drivers.map((d) => `${fixed(d.median.ratio, 3)}×`)],
			['wall / slowest job', ...drivers.map((d) => `${s(d.median.wallMs)} / ${s(d.median.slowestMs)}`)],
			['excess over the slowest job', ...drivers.map((d) => ms(median(d.runs.map((run) => excessMs(run.path)))))],
			...EXCESS_PARTS.map(([key, name]) => [`  ${name}`, ...drivers.map((d) => ms(d.median[key]))]),
			["  less: the last job's head start on the slowest", ...drivers.map((d) => ms(-d.median.slackMs))],
			['submit node executionTime', ...drivers.map((d) => ms(d.median.submitExecutionMs))],
			['detection lag, all jobs: mean / max', ...drivers.map((d) => `${ms(d.median.meanDetectionLagMs)} / ${ms(d.median.maxDetectionLagMs)}`)],
			['polls per job', ...drivers.map((d) => fixed(d.median.pollsPerJob, 2))],
			['CPU per batch (n8n main process / engine worker)', ...drivers.map((d) => ms(d.medianCpuMs))],
			// Read since 2026-12-07: results.json files from before have no such row.
			...(drivers.some((d) => d.medianSystemCpuMs !== undefined) ? [['  system (kernel) time, median of the batches', ...drivers.map((d) => ms(d.medianSystemCpuMs ?? NaN))]] : []),
			// Read since 2026-12-07, evening.
			...(drivers.some((d) => d.medianMainThreadCpuMs !== undefined) ? [['  on the main thread, median of the batches', ...drivers.map((d) => ms(d.medianMainThreadCpuMs ?? NaN))]] : []),
			...(drivers.some((d) => d.medianGcPauseMs !== undefined) ? [["  the main thread's GC pauses, median of the batches", ...drivers.map((d) => ms(d.medianGcPauseMs ?? NaN))]] : []),
		];
		return table(header, rows);
	});
}

/**
 * The CPU shape's batches one by one (the medians above hide how far they spread): per driver and batch, the
 * process's CPU, its main thread's part and the rest (by kind of thread where Node names its threads: n8n 2.41.1
 * on Node 24), the main thread's GC pauses and how many were full (mark-compact) collections; undefined for results from
 * before the main thread was read. The thread readings count whole ticks of 10 ms.
 */
export function realN8nCpuBatchesTable(r: RealN8nScenario, shapeId = REAL_N8N_SHAPES[0].id): string | undefined {
	const drivers = r.shapes.find((sh) => sh.shape.id === shapeId)?.drivers ?? [];
	if (!drivers.some((d) => d.runs.some((b) => b.mainThreadCpuMs !== undefined))) return undefined;
	const rest = (b: MeasuredBatch) => (b.cpuMs ?? NaN) - (b.mainThreadCpuMs ?? NaN);
	const named = (b: MeasuredBatch, key: 'v8Workers' | 'libuvPool') => (b.helperThreadsCpuMs ? ms(b.helperThreadsCpuMs[key]) : '—');
	return table(
		[`${shapeId}: CPU per batch`, 'batch', 'process', 'main thread', 'other threads (process − main)', '  of it V8 workers', '  of it libuv pool', "main thread's GC pauses", 'full GCs'],
		drivers.flatMap((d) =>
			d.runs.map((b, i) => [d.driver, String(i + 1), ms(b.cpuMs ?? NaN), ms(b.mainThreadCpuMs ?? NaN), ms(rest(b)), named(b, 'v8Workers'), named(b, 'libuvPool'), b.gc ? ms(b.gc.pauseMs) : 'n/a', b.gc ? String(b.gc.major) : 'n/a']),
		),
	);
}

/** Each driver's first batch per range (a fresh process: no ready times learned). */
export function realN8nColdTable(r: RealN8nScenario): string {
	return table(
		['Cold batch (fresh process)', 'Range', 'Makespan ÷ slowest', 'Polls/job', 'Detection lag mean / max', 'Excess'],
		r.cold.map((c) => [c.driver, c.range, `${fixed(c.batch.path.ratio, 3)}×`, fixed(c.batch.path.pollsPerJob, 1), `${ms(c.batch.path.meanDetectionLagMs)} / ${ms(c.batch.path.maxDetectionLagMs)}`, ms(excessMs(c.batch.path))]),
	);
}

export function realN8nReport(r: RealN8nScenario): string {
	const cpuBatches = realN8nCpuBatchesTable(r);
	const servers = r.servers
		.map((sv) => (sv.error ? `n8n ${sv.version}: did not start (${sv.error.slice(0, 200)})` : `n8n ${sv.version} on Node ${sv.nodeVersion}: home ${s(sv.setupMs ?? NaN)}, n8n start ${s(sv.startupMs ?? NaN)}`))
		.join('; ');
	return [
		`Real n8n. A real n8n beside the engine: the same 30-job shapes, ${r.runs} run(s) per shape and driver after one cold batch per range (medians; scenario took ${s(r.durationMs)}, build ${s(r.buildMs)}; load average ${r.loadAverage.atStart.map((x) => fixed(x, 1)).join('/')} → ${r.loadAverage.atEnd.map((x) => fixed(x, 1)).join('/')})`,
		`    ${servers}`,
		realN8nSummaryTable(r),
		'',
		'    Where the time above the slowest job goes: the critical path of the last job to finish, cut where n8n, the collector\'s report and the simulator recorded it (each row a median of its own)',
		...realN8nBreakdownTables(r).flatMap((t) => [t, '']),
		...(cpuBatches === undefined ? [] : [cpuBatches, '']),
		realN8nColdTable(r),
		...(r.errors.length > 0 ? ['', ...r.errors.map((e) => `    ERROR: ${e}`)] : []),
	].join('\n');
}
