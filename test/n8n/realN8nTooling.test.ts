/**
 * The real-n8n tooling's version matrix and the home's n8n launcher (scripts/n8n), without installing
 * n8n: a stand-in "n8n bin" prints what it was started with, and a stand-in "other Node" is a shell
 * script that runs this Node with a marker in the environment.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { launcherSource } from '../../scripts/n8n/home';
import { pathWith } from '../../scripts/n8n/nodeRuntime';
import { N8N_MATRIX, NEWEST_N8N, OLDEST_N8N, selectedN8nVersion } from '../../scripts/n8n/versions';

describe('the support matrix', () => {
	it('FLUX_E2E_N8N picks a version (default the oldest); anything else is refused naming the choices', () => {
		expect(selectedN8nVersion({}).n8n).toBe(OLDEST_N8N.n8n);
		expect(selectedN8nVersion({ FLUX_E2E_N8N: ' ' }).n8n).toBe(OLDEST_N8N.n8n);
		expect(selectedN8nVersion({ FLUX_E2E_N8N: 'newest' })).toBe(NEWEST_N8N);
		for (const entry of N8N_MATRIX) expect(selectedN8nVersion({ FLUX_E2E_N8N: entry.n8n })).toBe(entry);
		expect(() => selectedN8nVersion({ FLUX_E2E_N8N: '3.0.0' })).toThrow(/FLUX_E2E_N8N=3\.0\.0 is not in the support matrix.*2\.0\.3, 2\.41\.1/);
	});

	it('proves the oldest on the machine’s Node 20 and the newest on an exact Node 24 from npm', () => {
		expect(OLDEST_N8N).toEqual({ n8n: '2.0.3', node: { kind: 'system', min: '20.19.0' } });
		expect(NEWEST_N8N.node).toMatchObject({ kind: 'npm', version: expect.stringMatching(/^24\.\d+\.\d+$/) });
	});

	it('puts the version’s Node first on PATH, once', () => {
		expect(pathWith('/cache/node/bin', ['/usr/bin', '/cache/node/bin', '/bin'].join(path.delimiter))).toBe(
			['/cache/node/bin', '/usr/bin', '/bin'].join(path.delimiter),
		);
	});
});

describe('the home’s n8n launcher (<home>/n8n.js)', () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(path.join(tmpdir(), 'n8n-launcher-'));
		writeFileSync(
			path.join(dir, 'fake-n8n.js'),
			`console.log(JSON.stringify({ marker: process.env.OTHER_NODE ?? null, args: process.argv.slice(2), preloaded: !!globalThis.preloaded }));
			process.exitCode = Number(process.env.EXIT_WITH ?? 0);`,
		);
		writeFileSync(path.join(dir, 'preload.js'), 'globalThis.preloaded = true;');
		writeFileSync(path.join(dir, 'other-node'), `#!/bin/sh\nOTHER_NODE=yes exec ${JSON.stringify(process.execPath)} "$@"\n`, { mode: 0o755 });
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	function launch(nodeBin: string, env: Record<string, string> = {}) {
		writeFileSync(path.join(dir, 'n8n.js'), launcherSource(nodeBin, path.join(dir, 'fake-n8n.js')));
		const run = spawnSync(process.execPath, ['--require', path.join(dir, 'preload.js'), path.join(dir, 'n8n.js'), 'execute', '--id=abc'], {
			env: { ...process.env, ...env },
			encoding: 'utf8',
		});
		return { status: run.status, out: run.stdout.trim() ? (JSON.parse(run.stdout.trim()) as Record<string, unknown>) : null };
	}

	it('under the version’s own Node it is n8n itself (same process, same preload and arguments)', () => {
		expect(launch(process.execPath)).toEqual({ status: 0, out: { marker: null, args: ['execute', '--id=abc'], preloaded: true } });
	});

	it('under another Node it re-runs n8n under the version’s Node with the same preload, arguments and exit code', () => {
		expect(launch(path.join(dir, 'other-node'))).toEqual({ status: 0, out: { marker: 'yes', args: ['execute', '--id=abc'], preloaded: true } });
		expect(launch(path.join(dir, 'other-node'), { EXIT_WITH: '3' }).status).toBe(3);
	});
});
