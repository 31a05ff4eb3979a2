/** `npm run bench` arguments (bench/config.ts): the real-n8n scenario's versions and run count, and clear refusals. */
import { benchConfig, parseBenchArgs, realN8nVersions } from '../../bench/config';
import { N8N_MATRIX, NEWEST_N8N, OLDEST_N8N } from '../../scripts/n8n/versions';

describe('bench arguments', () => {
	it('defaults: every supported n8n version, 5 runs; --quick: the oldest, 1 run', () => {
		expect(benchConfig(false).REAL_N8N).toEqual({ versions: N8N_MATRIX.map((e) => e.n8n), runs: 5, asked: 'both' });
		expect(benchConfig(true).REAL_N8N).toEqual({ versions: [OLDEST_N8N.n8n], runs: 1, asked: 'oldest' });
	});

	it('--real-n8n and --real-runs pick the versions and the run count', () => {
		const args = parseBenchArgs(['--quick', `--real-n8n=${NEWEST_N8N.n8n}`, '--real-runs=5']);
		expect(args).toEqual({ quick: true, realN8n: NEWEST_N8N.n8n, realRuns: 5 });
		expect(benchConfig(args.quick, { versions: args.realN8n, runs: args.realRuns }).REAL_N8N).toEqual({ versions: [NEWEST_N8N.n8n], runs: 5, asked: NEWEST_N8N.n8n });
		expect(realN8nVersions('off')).toEqual([]);
		expect(realN8nVersions('newest')).toEqual([NEWEST_N8N.n8n]);
	});

	it('--help asks for the usage alone', () => {
		expect(parseBenchArgs(['--help'])).toEqual({ quick: false, help: true });
		expect(parseBenchArgs(['--quick'])).toEqual({ quick: true });
	});

	it('refuses what it does not know, naming the allowed values', () => {
		expect(() => parseBenchArgs(['--real-n8n=1.99.0'])).toThrow(/--real-n8n=1\.99\.0 is not one of both, oldest, newest, off, /);
		expect(() => parseBenchArgs(['--real-runs=0'])).toThrow(/--real-runs=0 is not an integer from 1 to 50/);
		expect(() => parseBenchArgs(['--fast'])).toThrow(/unknown argument\(s\) --fast; usage: npm run bench/);
	});
});
