/**
 * The goals of the real-n8n scenario: the 30-job shapes through a real n8n, per version — makespan ÷ slowest job
 * (median of the runs) against its target, polls per job for the long shape — each with the engine's figure of the
 * same shape from the same minutes and a `why` that says where the time above the slowest job went — and the CPU of
 * n8n's process per job in the short 1 MiB batches (issue 34's goal for the whole process). A version that did not
 * run is a MISS that says so; so is a scenario that was not run (`--real-n8n=off`).
 */
import { fixed, ms, s } from './format';
import { notMeasuredGoal, type Goal } from './goal';
import { excessMs, type CriticalPath } from './makespanBreakdown';
import { BATCH, ENGINE_DRIVER, excessText, n8nDriver, REAL_N8N_SHAPES, type DriverRuns, type RealN8nScenario, type RealN8nShape } from './scenarios/realN8n';
import { N8N_MATRIX } from '../scripts/n8n/versions';

const rangeText = (r: RealN8nScenario, shape: RealN8nShape) => {
	const { min, max } = r.ranges[shape.range];
	return `${fixed(min / 1000, 1)}–${fixed(max / 1000, 1)} s`;
};

/** A shape's range as the scenario's defaults give it (a goal of a version that did not run has no scenario to read). */
const defaultRangeText = (shape: RealN8nShape) => (shape.range === 'short' ? '1.5–3.5 s' : '12.0–20.0 s');
const sizeText = (shape: RealN8nShape) => shape.size.replace('m', ' MiB');

const targetText = (shape: RealN8nShape) => `≤ ${shape.target}×${'pollsTarget' in shape ? ` at ≤ ${shape.pollsTarget} polls/job` : ''}`;

function shapeTitle(shape: RealN8nShape, rangeLabel: string, version: string): string {
	return `${BATCH} jobs of ${rangeLabel}, ${sizeText(shape)} images, through a real n8n ${version} (webhook → submit → collect): makespan / slowest job`;
}

const pass = (shape: RealN8nShape, p: CriticalPath) => p.ratio <= shape.target && (!('pollsTarget' in shape) || p.pollsPerJob <= shape.pollsTarget);

/** The largest parts of the difference between n8n's and the engine's medians, named. */
function differenceText(real: CriticalPath, engine: CriticalPath): string {
	const keys = ['beforeSubmitMs', 'submitNodeMs', 'submitTripMs', 'detectionLagMs', 'pollToDownloadMs', 'downloadMs', 'afterDownloadMs', 'handOverMs', 'afterCollectMs'] as const;
	const diffs = keys.map((key) => ({ key, d: real[key] - engine[key] })).sort((a, b) => Math.abs(b.d) - Math.abs(a.d));
	return diffs
		.slice(0, 3)
		.map(({ key, d }) => `${key.replace(/Ms$/, '')} ${d >= 0 ? '+' : ''}${ms(d)}`)
		.join(', ');
}

function shapeGoal(r: RealN8nScenario, shape: RealN8nShape, version: string): Goal {
	const title = shapeTitle(shape, rangeText(r, shape), version);
	const id = `${shape.id}/${version}`;
	const server = r.servers.find((sv) => sv.version === version);
	const result = r.shapes.find((sh) => sh.shape.id === shape.id);
	const real = result?.drivers.find((d) => d.driver === n8nDriver(version));
	const engine = result?.drivers.find((d) => d.driver === ENGINE_DRIVER);
	if (!real || !engine) {
		const reason = server?.error?.slice(0, 300) ?? 'this version did not run';
		return { id, goal: title, measured: `not measured: ${reason}`, target: targetText(shape), result: 'MISS', why: `n8n ${version} did not run in this run: ${reason}` };
	}
	const m = real.median;
	const e = engine.median;
	return {
		id,
		goal: title,
		measured:
			`${fixed(m.ratio, 3)}× median of ${real.runs.length} (${real.runs.map((run) => fixed(run.path.ratio, 3)).join(', ')}; wall ${s(m.wallMs)} vs slowest ${s(m.slowestMs)}), ${fixed(m.pollsPerJob, 1)} polls/job; ` +
			`engine, same shape, same minutes: ${fixed(e.ratio, 3)}×, ${fixed(e.pollsPerJob, 1)} polls/job`,
		target: targetText(shape),
		result: pass(shape, m) ? 'PASS' : 'MISS',
		why:
			`median excess over the slowest job: n8n ${ms(medianOf(real, excessMs))} vs engine ${ms(medianOf(engine, excessMs))}; biggest differences (n8n − engine): ${differenceText(m, e)}. ` +
			`n8n (medians): ${excessText(m)}. Engine: ${excessText(e)}. ` +
			`Detection lag over all 30 jobs: n8n mean ${ms(m.meanDetectionLagMs)}, max ${ms(m.maxDetectionLagMs)}; engine mean ${ms(e.meanDetectionLagMs)}, max ${ms(e.maxDetectionLagMs)}. ` +
			`CPU per batch: n8n's main process ${ms(real.medianCpuMs)}, the engine's worker ${ms(engine.medianCpuMs)}.`,
	};
}

function medianOf(d: DriverRuns, of: (p: CriticalPath) => number): number {
	const values = d.runs.map((run) => of(run.path)).sort((a, b) => a - b);
	const mid = (values.length - 1) / 2;
	return (values[Math.floor(mid)] + values[Math.ceil(mid)]) / 2;
}

/** The shape whose batches the CPU goal reads (30 × 1 MiB, 1.5–3.5 s), and the goal: the whole n8n process, ms per job. */
const CPU_SHAPE = REAL_N8N_SHAPES[0];
const CPU_PER_JOB_TARGET_MS = 25;
const CPU_TARGET = `≤ ${CPU_PER_JOB_TARGET_MS} ms per job`;
const cpuTitle = (version: string) => `CPU of the n8n ${version} process per job, in the batches of ${CPU_SHAPE.id} (${BATCH} jobs of ${defaultRangeText(CPU_SHAPE)}, ${sizeText(CPU_SHAPE)} images): user + system, OS count`;

/** The kernel's share of a driver's CPU, as text (absent in results from before it was read). */
const systemText = (d: DriverRuns) => (d.medianSystemCpuMs !== undefined && Number.isFinite(d.medianSystemCpuMs) ? `; system (kernel) time ${ms(d.medianSystemCpuMs)} a batch, median of the batches` : '');

/** Where a driver's CPU ran and what its GC paused, as text (absent in results from before they were read). */
function threadText(d: DriverRuns): string {
	const known = (x: number | undefined): x is number => x !== undefined && Number.isFinite(x);
	const parts: string[] = [];
	if (known(d.medianMainThreadCpuMs)) parts.push(`main thread ${ms(d.medianMainThreadCpuMs)} a batch (the rest on other threads)`);
	if (known(d.medianGcPauseMs)) parts.push(`GC pauses ${ms(d.medianGcPauseMs)} a batch`);
	const recorded = d.runs.filter((b) => b.gc !== undefined);
	const fullGcs = recorded.length > 0 ? `; a full GC in ${recorded.filter((b) => b.gc!.major > 0).length} of ${recorded.length} batches` : '';
	return parts.length > 0 ? `; ${parts.join('; ')}, medians${fullGcs}` : fullGcs;
}

/** n8n's process CPU per job in {@link CPU_SHAPE}'s batches (median batch ÷ 30) against {@link CPU_PER_JOB_TARGET_MS}. */
function cpuGoal(r: RealN8nScenario, version: string): Goal {
	const id = `real-cpu/${version}`;
	const target = CPU_TARGET;
	const drivers = r.shapes.find((sh) => sh.shape.id === CPU_SHAPE.id)?.drivers;
	const real = drivers?.find((d) => d.driver === n8nDriver(version));
	const engine = drivers?.find((d) => d.driver === ENGINE_DRIVER);
	const perJob = (d: DriverRuns) => d.medianCpuMs / BATCH;
	if (!real || !Number.isFinite(perJob(real))) {
		const reason = r.servers.find((sv) => sv.version === version)?.error?.slice(0, 300) ?? 'its CPU was not measured in this run';
		return { id, goal: cpuTitle(version), measured: `not measured: ${reason}`, target, result: 'MISS', why: `n8n ${version}: ${reason}` };
	}
	return {
		id,
		goal: cpuTitle(version),
		measured: `${ms(perJob(real), 1)} per job (median batch of ${real.runs.length}: ${ms(real.medianCpuMs)}${systemText(real)}${threadText(real)}); the engine's worker, same batches: ${engine ? `${ms(perJob(engine), 1)} per job${systemText(engine)}${threadText(engine)}` : 'n/a'}`,
		target,
		result: perJob(real) <= CPU_PER_JOB_TARGET_MS ? 'PASS' : 'MISS',
		why:
			"the whole process: n8n's own work for the webhook, the execution and its database next to the package's, user and system (kernel) time; it moves widely from batch to batch with the same code, with the number of full collections in the batch (bench/README.md, \"n8n's CPU per batch moves twofold from batch to batch\" and the section after it). " +
			"The package's own share, by a CPU profile's attribution, is the row pkg-cpu/<version> (other batches: the profiler changes their timing).",
	};
}

/** What a fresh process costs: each driver's first batch per range (nothing learned), and the version's start-up. */
function coldGoal(r: RealN8nScenario, version: string): Goal | undefined {
	const server = r.servers.find((sv) => sv.version === version);
	if (!server || server.error) return undefined;
	const cold = (driver: string) => r.cold.filter((c) => c.driver === driver);
	const text = (driver: string) => cold(driver).map((c) => `${c.range}: ${fixed(c.batch.path.ratio, 3)}×, ${fixed(c.batch.path.pollsPerJob, 1)} polls/job`).join('; ');
	return {
		id: `real-d/${version}`,
		goal: `A fresh n8n ${version} process: its first batch of each range (no ready times learned yet), and its start-up`,
		measured: `n8n: ${text(n8nDriver(version))}; engine (fresh worker): ${text(ENGINE_DRIVER)}; n8n start ready in ${s(server.startupMs ?? NaN)} (home and package install ${s(server.setupMs ?? NaN)})`,
		target: 'INFO',
		result: 'INFO',
		why:
			'the poll schedule learns each model\'s times-to-ready in the process (src/flux/pollShared.ts); a process that has seen none polls by the elapsed-fraction fallback, which costs more polls. ' +
			'`n8n execute` starts a new process for every run, so each of its runs is such a first batch; a running `n8n start` pays it once.',
	};
}

export function realN8nGoals(r: RealN8nScenario | undefined, asked: string): Goal[] {
	const goals: Goal[] = [];
	// Every version of the support matrix has its rows: one this run did not measure is a MISS that says so.
	for (const { n8n: version } of N8N_MATRIX) {
		const ran = r?.versions.includes(version) === true;
		for (const shape of REAL_N8N_SHAPES) {
			goals.push(r && ran ? shapeGoal(r, shape, version) : notMeasuredGoal(`${shape.id}/${version}`, shapeTitle(shape, defaultRangeText(shape), version), targetText(shape), asked));
		}
		goals.push(r && ran ? cpuGoal(r, version) : notMeasuredGoal(`real-cpu/${version}`, cpuTitle(version), CPU_TARGET, asked));
		const cold = r && ran ? coldGoal(r, version) : undefined;
		if (cold) goals.push(cold);
	}
	return goals;
}
