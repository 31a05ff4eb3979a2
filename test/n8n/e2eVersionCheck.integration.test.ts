/**
 * A FLUX_E2E_N8N outside the support matrix fails the e2e run once, up front (jest.e2e.config.js's
 * globalSetup, test/e2e/globalSetup.ts), with the clear message naming the variable and the allowed
 * values: not once per e2e test file, and no stack trace.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

import checkSelectedN8nVersion from '../e2e/globalSetup';

const ROOT = path.resolve(__dirname, '../..');
const MESSAGE = 'FLUX_E2E_N8N=3.0.0 is not in the support matrix (scripts/n8n/versions.ts); use one of: 2.0.3, 2.41.1, oldest, newest';

describe('the e2e run checks FLUX_E2E_N8N once, before any test file', () => {
	it('the globalSetup passes for the matrix’s values and refuses another with the message alone as its stack', () => {
		const saved = process.env.FLUX_E2E_N8N;
		try {
			for (const value of ['', 'oldest', 'newest', '2.41.1']) {
				process.env.FLUX_E2E_N8N = value;
				expect(() => checkSelectedN8nVersion()).not.toThrow();
			}
			process.env.FLUX_E2E_N8N = '3.0.0';
			const refused = (() => {
				try {
					checkSelectedN8nVersion();
				} catch (error) {
					return error as Error;
				}
				throw new Error('3.0.0 was accepted');
			})();
			expect(refused.message).toBe(MESSAGE);
			expect(refused.stack).toBe(MESSAGE);
		} finally {
			if (saved === undefined) delete process.env.FLUX_E2E_N8N;
			else process.env.FLUX_E2E_N8N = saved;
		}
	});

	it('`jest --config jest.e2e.config.js` with FLUX_E2E_N8N=3.0.0 exits 1 with the message once, before any test file runs', () => {
		// The name pattern matches no test: should the check ever not stop the run, no e2e test starts n8n here.
		const run = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--config', 'jest.e2e.config.js', '--testNamePattern', '^never a test name$'], {
			cwd: ROOT,
			env: { ...process.env, FLUX_E2E_N8N: '3.0.0' },
			encoding: 'utf8',
			timeout: 110_000,
		});
		const output = `${run.stdout}${run.stderr}`;
		expect(run.status).toBe(1);
		expect(output.split(MESSAGE)).toHaveLength(2); // once
		expect(output).not.toMatch(/^\s+at /m); // no stack trace
		expect(output).not.toMatch(/PASS|FAIL|Test Suites:/); // no test file ran
	});
});
