/**
 * Issue 34's goal for the package's own CPU: a 1 MiB image job costs at most 10 ms of it, by the CPU profile's
 * attribution (bench/scenarios/packageCpu.ts): the package's own functions, told apart from n8n's, Node's and its
 * dependencies', as the "Profile first" asks them told apart. One row per supported n8n version, the engine's
 * figure beside it, and what the package's frames cause (incl. the n8n, Node and dependency work below them) beside
 * the graded figure: that is the larger number, and the one the profile points at. A version the run did not
 * profile is a MISS that says so.
 */
import { fixed } from './format';
import { notMeasuredGoal, type Goal } from './goal';
import { PROFILE_BATCH } from './profileBatches';
import type { PackageCpuScenario, PackageCpuTarget } from './scenarios/packageCpu';
import { N8N_MATRIX } from '../scripts/n8n/versions';

const TARGET_MS = 10;
const TARGET = `≤ ${TARGET_MS} ms per job (own)`;
const title = (version: string) =>
	`The package's own CPU per job in a real n8n ${version}: ${PROFILE_BATCH} × 1 MiB image jobs (1.5–3.5 s) under node --cpu-prof, the package's functions by the profile's attribution`;

const perJobText = (t: PackageCpuTarget) =>
	`own ${fixed(t.ownMs, 2)} ms per job; incl. the n8n/Node/dependency work below its frames ${fixed(t.inclMs, 2)}; the process under the profiler ${fixed(t.processMs, 1)}`;

function versionGoal(r: PackageCpuScenario, measured: PackageCpuTarget, version: string): Goal {
	const id = `pkg-cpu/${version}`;
	if (measured.error !== undefined) return { id, goal: title(version), measured: `not measured: ${measured.error.slice(0, 300)}`, target: TARGET, result: 'MISS', why: `n8n ${version}: ${measured.error}` };
	const engine = r.targets.find((t) => t.target === 'engine');
	const batches = `${measured.jobs} jobs in ${measured.measuredBatches} batch${measured.measuredBatches === 1 ? '' : 'es'}`;
	return {
		id,
		goal: title(version),
		measured: `${perJobText(measured)} (${batches}); the engine's worker: ${engine && engine.error === undefined ? perJobText(engine) : 'not measured'}`,
		target: TARGET,
		result: measured.ownMs <= TARGET_MS ? 'PASS' : 'MISS',
		why:
			"own: the samples whose running frame is the package's code, as a share of the busy samples × the process's CPU as the OS counted it, ÷ the jobs. " +
			"incl.: also the n8n, Node and dependency frames below the package's (reading the prompt's expression, hashing and writing the image, undici's work for its requests): what the package's code causes, a lower bound (work resumed after an await has no caller). " +
			`The profiler slows these batches; the makespan rows read other batches. Their full tables: npx ts-node --transpile-only bench/cpuProfile.ts --analyse=${r.profilesDir}`,
	};
}

export function packageCpuGoals(r: PackageCpuScenario | undefined, asked: string): Goal[] {
	return N8N_MATRIX.map(({ n8n: version }) => {
		const measured = r?.targets.find((t) => t.target === version);
		return r && measured ? versionGoal(r, measured, version) : notMeasuredGoal(`pkg-cpu/${version}`, title(version), TARGET, asked);
	});
}
