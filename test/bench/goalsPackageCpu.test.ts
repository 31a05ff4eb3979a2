/**
 * Issue 34's package-CPU goal rows (bench/goalsPackageCpu.ts): the package's own CPU per job, by the profile's
 * attribution, ≤ 10 ms passes and more misses; every supported n8n version has its row, and one the run did not
 * profile (not asked, or failed) is a MISS that says so.
 */
import { packageCpuGoals } from '../../bench/goalsPackageCpu';
import type { PackageCpuScenario } from '../../bench/scenarios/packageCpu';
import { N8N_MATRIX, NEWEST_N8N, OLDEST_N8N } from '../../scripts/n8n/versions';

function scenario(ownMs: number): PackageCpuScenario {
	const target = (name: string, own: number) => ({ target: name, measuredBatches: 3, jobs: 90, ownMs: own, inclMs: own * 6, processMs: own * 12, sampledShare: 1 });
	return { size: '1m', measuredBatches: 3, targets: [target('engine', 4), target(OLDEST_N8N.n8n, ownMs)], profilesDir: '/tmp/profiles', loadAverage: { atStart: [0, 0, 0], atEnd: [0, 0, 0] }, durationMs: 1 };
}

const byId = (goals: ReturnType<typeof packageCpuGoals>) => Object.fromEntries(goals.map((g) => [g.id, g]));

describe('package-CPU goals', () => {
	const v = OLDEST_N8N.n8n;

	it('pass at ≤ 10 ms of own CPU per job, miss above, with the engine beside', () => {
		expect(byId(packageCpuGoals(scenario(10), 'oldest'))[`pkg-cpu/${v}`]).toMatchObject({
			result: 'PASS',
			measured:
				"own 10.00 ms per job; incl. the n8n/Node/dependency work below its frames 60.00; the process under the profiler 120.0 (90 jobs in 3 batches); the engine's worker: own 4.00 ms per job; incl. the n8n/Node/dependency work below its frames 24.00; the process under the profiler 48.0",
			target: '≤ 10 ms per job (own)',
		});
		expect(byId(packageCpuGoals(scenario(10.01), 'oldest'))[`pkg-cpu/${v}`].result).toBe('MISS');
	});

	it('lists every supported version: one not profiled, or whose profile failed, is a MISS that says so', () => {
		const goals = packageCpuGoals(scenario(5), 'oldest');
		expect(goals.map((g) => g.id)).toEqual(N8N_MATRIX.map(({ n8n }) => `pkg-cpu/${n8n}`));
		expect(byId(goals)[`pkg-cpu/${NEWEST_N8N.n8n}`]).toMatchObject({ result: 'MISS', measured: 'not measured in this run (--real-n8n=oldest)' });
		expect(packageCpuGoals(undefined, 'off').every((g) => g.result === 'MISS' && /--real-n8n=off/.test(g.measured))).toBe(true);
		const failed = scenario(5);
		failed.targets[1] = { target: v, measuredBatches: 0, jobs: 0, ownMs: NaN, inclMs: NaN, processMs: NaN, sampledShare: 0, error: 'did not start in the real-n8n scenario: n8n start exited (1)' };
		expect(byId(packageCpuGoals(failed, 'oldest'))[`pkg-cpu/${v}`]).toMatchObject({ result: 'MISS', measured: 'not measured: did not start in the real-n8n scenario: n8n start exited (1)' });
	});
});
