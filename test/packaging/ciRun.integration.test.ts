/**
 * `.ci/run`'s own control flow, with npm, npx and redis-server replaced by stubs on PATH (the real
 * script, copied into a scratch checkout; real bash, node and setsid): a failed n8n install prints its
 * log and does not skip the other version, the closing `tests:` line counts every run (unit, integration,
 * e2e), failing unit or integration tests stop CI before the e2e runs, the exit code
 * is the failure's, and a background install is stopped with everything under it when CI stops early.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

const NPM_STUB = `#!/usr/bin/env bash
# Stub npm for .ci/run: the matrix is "1.0.0 2.0.0" (see npx); $STUB_DIR holds the switches.
out=""; for a in "$@"; do case "$a" in --outputFile=*) out="\${a#--outputFile=}";; esac; done
case "$*" in
	-v) echo 10.0.0;;
	"run --silent n8n:install -- --version "*)
		version="\${!#}"
		if [ -f "$STUB_DIR/fail-install-$version" ]; then echo "npm error 404 @n8n/agents for $version"; exit 3; fi
		if [ -f "$STUB_DIR/hang-install-$version" ]; then
			sleep 300 & echo "$!" > "$STUB_DIR/install-child.pid"; wait; exit 0
		fi
		echo "n8n $version on Node 24.9.0: /stub/n8n (ready in 0s)";;
	"test -- --json "*)
		if [ -f "$STUB_DIR/fail-unit" ]; then
			# Fail only once the hanging install runs (waits for a state, not a time).
			until [ -s "$STUB_DIR/install-child.pid" ]; do sleep 0.05; done
			echo '{"numPassedTests":4,"numFailedTests":1}' > "$out"; exit 1
		fi
		echo '{"numPassedTests":5,"numFailedTests":0}' > "$out";;
	"run test:integration -- --json "*)
		if [ -f "$STUB_DIR/fail-integration" ]; then echo '{"numPassedTests":2,"numFailedTests":1}' > "$out"; exit 1; fi
		echo '{"numPassedTests":3,"numFailedTests":0}' > "$out";;
	"run test:e2e -- --json "*)
		echo "e2e with FLUX_E2E_N8N=$FLUX_E2E_N8N" >> "$STUB_DIR/e2e-runs"
		echo '{"numPassedTests":2,"numFailedTests":0}' > "$out";;
	*) ;;
esac
`;

const NPX_STUB = `#!/usr/bin/env bash
case "$*" in *"cli.ts versions"*) printf '1.0.0\\n2.0.0\\n';; esac
`;

interface CiRun {
	status: number | null;
	stdout: string;
	stderr: string;
	stubDir: string;
}

const scratch: string[] = [];
afterAll(() => {
	for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

function runCi(switches: string[]): CiRun {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'ci-run-'));
	scratch.push(dir);
	const repo = path.join(dir, 'repo');
	const bin = path.join(dir, 'bin');
	const stubDir = path.join(dir, 'stub');
	for (const d of [path.join(repo, '.ci'), bin, stubDir]) mkdirSync(d, { recursive: true });
	copyFileSync(path.join(ROOT, '.ci/run'), path.join(repo, '.ci/run'));
	const stubs: Record<string, string> = { npm: NPM_STUB, npx: NPX_STUB, 'redis-server': '#!/bin/sh\necho "Redis server v=7.0.0 sha=0"\n' };
	for (const [name, body] of Object.entries(stubs)) {
		writeFileSync(path.join(bin, name), body);
		chmodSync(path.join(bin, name), 0o755);
	}
	for (const name of switches) writeFileSync(path.join(stubDir, name), '');
	const result = spawnSync('bash', [path.join(repo, '.ci/run')], {
		encoding: 'utf8',
		env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, STUB_DIR: stubDir, FLUX_E2E_N8N: '' },
		timeout: 60_000,
	});
	return { status: result.status, stdout: result.stdout, stderr: result.stderr, stubDir };
}

/** Running (a zombie waiting for its reaper counts as stopped). */
function isRunning(pid: number): boolean {
	try {
		return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
	} catch {
		return false;
	}
}

/** Waits (a bounded number of checks) until `pid` is no longer running; true when it stopped. */
async function stops(pid: number): Promise<boolean> {
	for (let i = 0; i < 200 && isRunning(pid); i++) await new Promise((resolve) => setImmediate(resolve));
	return !isRunning(pid);
}

describe('.ci/run', () => {
	it('all green: every version runs its e2e suite and the tests line counts all runs', () => {
		const run = runCi([]);
		expect(run.status).toBe(0);
		expect(readFileSync(path.join(run.stubDir, 'e2e-runs'), 'utf8')).toBe('e2e with FLUX_E2E_N8N=1.0.0\ne2e with FLUX_E2E_N8N=2.0.0\n');
		expect(run.stdout.trim().split('\n').pop()).toBe('tests: 12 passed, 0 failed');
	});

	it('a failed install prints its log, the other version still runs, the tests line names the missing run, CI fails', () => {
		const run = runCi(['fail-install-1.0.0']);
		expect(run.status).toBe(1);
		expect(run.stderr).toContain('the n8n 1.0.0 install failed (exit 3)');
		expect(run.stderr).toContain('npm error 404 @n8n/agents for 1.0.0');
		expect(readFileSync(path.join(run.stubDir, 'e2e-runs'), 'utf8')).toBe('e2e with FLUX_E2E_N8N=2.0.0\n');
		expect(run.stdout.trim().split('\n').pop()).toBe('tests: 10 passed, 0 failed (no results from: e2e-1.0.0)');
	});

	it('failing integration tests stop CI with their exit code before the e2e runs, and the tests line counts them', () => {
		const run = runCi(['fail-integration']);
		expect(run.status).toBe(1);
		expect(existsSync(path.join(run.stubDir, 'e2e-runs'))).toBe(false);
		expect(run.stdout.trim().split('\n').pop()).toBe('tests: 7 passed, 1 failed');
	});

	it('failing unit tests stop CI with their exit code, print the tests line and stop the installs with their children', async () => {
		const run = runCi(['fail-unit', 'hang-install-2.0.0']);
		const child = Number(readFileSync(path.join(run.stubDir, 'install-child.pid'), 'utf8'));
		const stopped = await stops(child);
		if (!stopped) process.kill(child, 'SIGKILL');
		expect(stopped).toBe(true);
		expect(run.status).toBe(1);
		expect(existsSync(path.join(run.stubDir, 'e2e-runs'))).toBe(false);
		expect(run.stdout.trim().split('\n').pop()).toBe('tests: 4 passed, 1 failed');
	});
});
