/**
 * Why a real n8n collects its whole heap during a batch, and what a setting changes about it: `n8n start` under V8's
 * `--trace-gc --trace-incremental-marking`, batches of 30 image jobs (bench/profileBatches.ts), each arm a fresh n8n
 * (a warm-up batch first); with `--compare=VAR=VALUE` a second arm with that variable in n8n's environment, the arms
 * alternating round by round. Per batch: the process's CPU, its main thread's, V8's workers' (Node 24), the wall
 * time, the full collections (V8's Mark-Compact lines) and why V8 started each marking; then medians and means per
 * version and arm. Builds the package first (n8n installs it from dist/).
 * `npx ts-node --transpile-only bench/probeGcReasons.ts [--targets=2.41.1,2.0.3] [--compare=VAR=VALUE] [--rounds=2]
 * [--batches=10] [--size=1m]`
 */
import { buildPackage } from './buildPackage';
import { log } from './format';
import { markingReasons } from './gcEvents';
import { argReader, fireN8nBatch, openProfiledN8n, parseBatchArgs, startProfileSim, PROFILE_BATCH } from './profileBatches';
import { mean, median } from './stats';

/** The arms, by name: n8n's environment in each (`as configured`, and with `--compare` that variable set). */
export function probeArms(compare: string | undefined): Map<string, Record<string, string>> {
	const arms = new Map<string, Record<string, string>>([['as configured', {}]]);
	if (compare === undefined) return arms;
	const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(compare);
	if (!match) throw new Error(`--compare must be VAR=VALUE (an environment variable of n8n), got ${compare}`);
	return arms.set(compare, { [match[1]]: match[2] });
}

/** What V8's trace printed over one batch: its full collections, and why each marking started (reason → count). */
export interface GcTrace {
	fullCollections: number;
	markingStarts: Map<string, number>;
}

/** Reads V8's `--trace-gc` / `--trace-incremental-marking` lines: `Mark-Compact …` (not `Minor Mark-Compact`) and the marking starts (gcEvents.ts). */
export function readGcTrace(text: string): GcTrace {
	const fullCollections = text.split('\n').filter((line) => /\bMark-Compact\b/.test(line) && !/Minor Mark-Compact/.test(line)).length;
	return { fullCollections, markingStarts: markingReasons(text) };
}

interface BatchReading {
	cpuMs?: number;
	mainMs?: number;
	v8WorkersMs?: number;
	wallMs: number;
	trace: GcTrace;
}

async function runArm(version: string, arm: string, env: Record<string, string>, batches: number, size: ReturnType<typeof parseBatchArgs>['size'], sim: Awaited<ReturnType<typeof startProfileSim>>): Promise<BatchReading[]> {
	const session = await openProfiledN8n(version, sim, ['--trace-gc', '--trace-incremental-marking'], env);
	const readings: BatchReading[] = [];
	try {
		await fireN8nBatch(session, `gc warm ${version} ${arm} ${Date.now()}`, size);
		for (let b = 1; b <= batches; b++) {
			const before = session.output().length;
			const execution = await fireN8nBatch(session, `gc ${b} ${version} ${arm} ${Date.now()}`, size);
			const threads = execution.n8nThreads;
			const reading: BatchReading = {
				cpuMs: execution.n8nCpuMs,
				mainMs: threads?.mainThreadCpuMs,
				v8WorkersMs: threads?.helperThreadsCpuMs?.v8Workers,
				wallMs: execution.answeredAt - execution.firedAt,
				trace: readGcTrace(session.output().slice(before)),
			};
			readings.push(reading);
			const starts = [...reading.trace.markingStarts].map(([reason, n]) => `${n} × ${reason}`).join(', ') || 'none';
			log(`n8n ${version}, ${arm}, batch ${b} (${size}): CPU ${reading.cpuMs ?? '?'} ms, main thread ${reading.mainMs ?? '?'} ms, V8 workers ${reading.v8WorkersMs ?? '?'} ms, wall ${reading.wallMs} ms; full GCs ${reading.trace.fullCollections} (marking started: ${starts})`);
		}
	} finally {
		await session.close();
	}
	return readings;
}

function summary(version: string, arm: string, readings: readonly BatchReading[]): string {
	const med = (pick: (r: BatchReading) => number | undefined) => {
		const values = readings.map(pick).filter((v): v is number => v !== undefined);
		return values.length === 0 ? '—' : `${Math.round(median(values))} ms`;
	};
	const perBatch = (pick: (r: BatchReading) => number) => mean(readings.map(pick)).toFixed(2);
	const reasons = [...new Set(readings.flatMap((r) => [...r.trace.markingStarts.keys()]))].sort();
	const starts = reasons.map((reason) => `${reason} ${perBatch((r) => r.trace.markingStarts.get(reason) ?? 0)}`).join(', ') || 'none';
	const cpuPerJob = med((r) => (r.cpuMs === undefined ? undefined : r.cpuMs / PROFILE_BATCH)).replace(' ms', ' ms/job');
	return `| n8n ${version} | ${arm} | ${readings.length} | ${med((r) => r.cpuMs)} (${cpuPerJob}) | ${med((r) => r.mainMs)} | ${med((r) => r.v8WorkersMs)} | ${perBatch((r) => r.trace.fullCollections)} | ${starts} | ${med((r) => r.wallMs)} |`;
}

async function main(): Promise<void> {
	const value = argReader(process.argv.slice(2), ['targets', 'compare', 'rounds', 'batches', 'size'], 'bench/probeGcReasons.ts');
	const { batches, size } = parseBatchArgs(value);
	const targets = (value('targets') ?? '2.41.1').split(',');
	const arms = probeArms(value('compare'));
	const names = [...arms.keys()];
	const rounds = Number(value('rounds') ?? 2);
	if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number ≥ 1, got ${value('rounds')}`);
	await buildPackage('probeGcReasons');
	const sim = await startProfileSim();
	const readings = new Map<string, BatchReading[]>();
	try {
		for (let round = 1; round <= rounds; round++) {
			for (const version of targets) {
				for (const arm of round % 2 === 1 ? names : [...names].reverse()) {
					const key = `${version}\u0000${arm}`;
					readings.set(key, [...(readings.get(key) ?? []), ...(await runArm(version, arm, arms.get(arm)!, batches, size, sim))]);
				}
			}
		}
	} finally {
		await sim.sim.close();
	}
	log(`${size} images, ${PROFILE_BATCH} jobs a batch, ${rounds} round(s) of ${batches} batches per arm; medians, full GCs and marking starts as means per batch:`);
	console.log('| n8n | arm | batches | process CPU per batch | main thread | V8 workers | full GCs | marking started by (per batch) | wall |');
	console.log('|---|---|---|---|---|---|---|---|---|');
	for (const [key, rows] of readings) {
		const [version, arm] = key.split('\u0000');
		console.log(summary(version, arm, rows));
	}
}

if (require.main === module) void main().catch((error: unknown) => { console.error(error); process.exit(1); });
