/**
 * Scenario 3, submit overhead, run first in the freshly warmed worker: submit-only executions, the pool
 * drained between repetitions (L = 50 ms so that draining is quick; the submit node's own time does not
 * depend on L while the gate has room).
 */
import { log, ms } from '../format';
import type { SubmitOverheadResult } from '../protocol';
import type { Bench } from '../session';
import { median, p95 } from '../stats';
import type { Worker } from '../workerProcess';

export interface SubmitOverhead {
	overhead: SubmitOverheadResult;
	execMs: number[];
	execCpuMs: number[];
	cpuPerJob: number[];
}

export async function runSubmitOverhead(bench: Bench, worker: Worker): Promise<SubmitOverhead> {
	const { sim, simRef, config } = bench;
	sim.reset();
	sim.setLatency(50);
	const { result: overhead } = await worker.run<SubmitOverheadResult>({
		kind: 'submitOverhead',
		sim: simRef,
		prefix: 'overhead',
		count: 30,
		...config.OVERHEAD_RUNS,
	});
	sim.setLatency(config.LATENCY);
	const execMs = overhead.reps.map((r) => r.executeMs);
	const execCpuMs = overhead.reps.map((r) => r.executeCpuMs);
	const cpuPerJob = overhead.reps.map((r) => (r.cpu.user + r.cpu.system) / r.jobs);
	log(`submit 30 items: median ${ms(median(execMs), 1)}, p95 ${ms(p95(execMs), 1)}`);
	return { overhead, execMs, execCpuMs, cpuPerJob };
}
