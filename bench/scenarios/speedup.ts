/** Scenario 2, speedup: the serial node on the same 30 jobs (same prompts → same seeded latencies as N = 30). */
import { fixed, log, s } from '../format';
import type { SerialResult } from '../protocol';
import type { Bench } from '../session';
import type { Worker } from '../workerProcess';
import type { Makespan30 } from './makespan';

export interface Speedup {
	serial: SerialResult;
	serialPolls: number;
	sameLatencies: boolean;
	speedup: number;
	speedups: number[];
	idealSpeedup: number;
}

export async function runSpeedup(bench: Bench, worker: Worker, n30: Makespan30): Promise<Speedup> {
	const { sim, simRef } = bench;
	sim.reset();
	log('serial FLUX 3 Image node, 30 jobs (about a minute) …');
	const { result: serial } = await worker.run<SerialResult>({ kind: 'serial', sim: simRef, prefix: 'job', count: 30 });
	if (serial.status !== 'success' || serial.items !== 30) throw new Error(`serial run: ${serial.status} ${serial.error ?? ''}`);
	const serialLatencies = [...sim.log.tasks.values()].map((t) => t.latencyMs);
	const speedup = serial.wallMs / n30.r30.wallMs;
	const idealSpeedup = serialLatencies.reduce((x, y) => x + y, 0) / n30.ideal30;
	log(`serial: ${s(serial.wallMs)} → speedup ${fixed(speedup, 1)} (ideal ${fixed(idealSpeedup, 1)})`);
	return {
		serial,
		serialPolls: sim.log.polls / 30,
		sameLatencies: JSON.stringify([...serialLatencies].sort()) === JSON.stringify(n30.j30.map((j) => j.latencyMs).sort()),
		speedup,
		speedups: n30.runs30.map((run) => serial.wallMs / run.result.wallMs),
		idealSpeedup,
	};
}
