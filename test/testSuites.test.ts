/**
 * The test suites' split (test/integrationTests.js): a test file that starts a process (a redis-server, a forked or
 * spawned process, a tmpfs, `npm pack`) is an integration test, and every other file under test/ but test/e2e runs
 * in `npm test`; the list names only files that exist.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the list is CommonJS, shared with the jest configs
const integrationTests: string[] = require('./integrationTests');

const ROOT = path.resolve(__dirname, '..');
/** What starting a process looks like in a test file (directly, or through the helpers that start one). */
const STARTS_A_PROCESS = /startTestRedis|useRedisServer|\bfork\(|\bspawn(Sync)?\(|\bexecFile(Sync)?\b|mountTmpfs|npm pack|'pack'/;

function testFiles(dir: string): string[] {
	return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
		const file = `${dir}/${entry.name}`;
		if (entry.isDirectory()) return file === 'test/e2e' ? [] : testFiles(file);
		return file.endsWith('.test.ts') ? [file] : [];
	});
}

it('names each integration test once, and only files that exist', () => {
	expect(integrationTests.filter((file) => !existsSync(path.join(ROOT, file)))).toEqual([]);
	expect(new Set(integrationTests).size).toBe(integrationTests.length);
});

it('a test file that starts a process is an integration test; one that starts none runs in npm test', () => {
	const files = testFiles('test').filter((file) => file !== 'test/testSuites.test.ts'); // its pattern is not a process
	const startsOne = files.filter((file) => STARTS_A_PROCESS.test(readFileSync(path.join(ROOT, file), 'utf8')));
	expect(startsOne.sort()).toEqual([...integrationTests].sort());
});
