/**
 * The real-n8n tooling's version matrix and the home's n8n launcher (scripts/n8n), without installing
 * n8n: a stand-in "n8n bin" prints what it was started with, and a stand-in "other Node" is a shell
 * script that runs this Node with a marker in the environment.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

import { launcherSource } from '../../scripts/n8n/home';
import { pathWith } from '../../scripts/n8n/nodeRuntime';
import { reuseSqliteBuild, shareSqliteBuild } from '../../scripts/n8n/sqliteBuild';
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

describe('one sqlite3 build shared by the n8n versions (N-API)', () => {
	let cache: string;
	const saved = process.env.XDG_CACHE_HOME;
	beforeEach(() => {
		cache = mkdtempSync(path.join(tmpdir(), 'n8n-cache-'));
		process.env.XDG_CACHE_HOME = cache;
	});
	afterEach(() => {
		if (saved === undefined) delete process.env.XDG_CACHE_HOME;
		else process.env.XDG_CACHE_HOME = saved;
		rmSync(cache, { recursive: true, force: true });
	});

	function install(name: string, sqliteVersion: string, built?: string): string {
		const dir = path.join(cache, name);
		mkdirSync(path.join(dir, 'node_modules', 'sqlite3', 'build', 'Release'), { recursive: true });
		writeFileSync(path.join(dir, 'node_modules', 'sqlite3', 'package.json'), JSON.stringify({ version: sqliteVersion }));
		if (built) writeFileSync(path.join(dir, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node'), built);
		return dir;
	}
	const binary = (dir: string) => path.join(dir, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node');

	it('the first build is kept and put in place for a version with the same sqlite3, not for another', async () => {
		const first = install('n8n-a', '5.1.7', 'built once');
		await expect(reuseSqliteBuild(first)).resolves.toBe(false); // nothing shared yet: build it
		await shareSqliteBuild(first);
		const second = install('n8n-b', '5.1.7');
		await expect(reuseSqliteBuild(second)).resolves.toBe(true);
		expect(readFileSync(binary(second), 'utf8')).toBe('built once');
		const other = install('n8n-c', '6.0.0');
		await expect(reuseSqliteBuild(other)).resolves.toBe(false);
		expect(existsSync(binary(other))).toBe(false);
	});

	it('nothing is shared from an install without a build', async () => {
		await shareSqliteBuild(install('n8n-a', '5.1.7'));
		await expect(reuseSqliteBuild(install('n8n-b', '5.1.7'))).resolves.toBe(false);
	});
});
