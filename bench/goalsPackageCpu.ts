/**
 * Issue 34's goal for the package's own CPU: a 1 MiB image job costs at most 10 ms of it, by the CPU profile's
 * attribution (bench/scenarios/packageCpu.ts), one row per supported n8n version, the engine's figure beside it. A
 * version the run did not profile is a MISS that says so.
 */
import { fixed } from './format';
import type { Goal } from './goal';
import type { PackageCpuScenario, PackageCpuTarget } from './scenarios/packageCpu';
import { N8N_MATRIX } from '../scripts/n8n/versions';

export const PACKAGE_CPU_TARGET_MS = 10;
const TARGET = `≤ ${PACKAGE_CPU_TARGET_MS} ms per job (own)`;
const title = (version: string) =>
	`The package's own CPU per job in a real n8n ${version}: 30 × 1 MiB image jobs (1.5–3.5 s) under node --cpu-prof, the package's frames by the profile's attribution`;

const perJobText = (t: PackageCpuTarget) => `${fixed(t.ownMs, 2)} ms per job own, ${fixed(t.inclMs, 2)} incl. the n8n/Node/dependency work below its frames; the process ${fixed(t.processMs, 1)}`;

function versionGoal(r: PackageCpuScenario, version: string): Goal {
	const id = `pkg-cpu/${version}`;
	const measured = r.targets.find((t) => t.target === version);
	const engine = r.targets.find((t) => t.target === 'engine');
	if (!measured || measured.error !== undefined || !Number.isFinite(measured.ownMs)) {
		const reason = measured?.error?.slice(0, 300) ?? 'this version was not profiled in this run';
		return { id, goal: title(version), measured: `not measured: ${reason}`, target: TARGET, result: 'MISS', why: `n8n ${version}: ${reason}` };
	}
	return {
		id,
		goal: title(version),
		measured: `${perJobText(measured)} (${measured.jobs} jobs in ${measured.batches} batch${measured.batches === 1 ? '' : 'es'}); the engine's worker: ${engine && Number.isFinite(engine.ownMs) ? perJobText(engine) : 'not measured'}`,
		target: TARGET,
		result: measured.ownMs <= PACKAGE_CPU_TARGET_MS ? 'PASS' : 'MISS',
		why:
			"own: the samples whose running frame is the package's, as a share of the busy samples × the process's CPU as the OS counted it, ÷ the jobs. " +
			"The profiler slows these batches; the makespan rows read other batches. Their full tables: bench/cpuProfile.ts --analyse=" + r.profilesDir,
	};
}

export function packageCpuGoals(r: PackageCpuScenario | undefined, asked: string): Goal[] {
	return N8N_MATRIX.map(({ n8n: version }) => {
		if (r?.targets.some((t) => t.target === version)) return versionGoal(r, version);
		const measured = `not measured in this run (--real-n8n=${asked})`;
		return { id: `pkg-cpu/${version}`, goal: title(version), measured, target: TARGET, result: 'MISS', why: `${measured}: a goal this run did not measure is not met; run with --real-n8n=both (the default).` };
	});
}
