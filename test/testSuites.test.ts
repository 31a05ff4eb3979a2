/**
 * The test suites' split by name: a test file that starts a process (a redis-server, a forked or spawned process, a
 * tmpfs, `npm pack`) is named `*.integration.test.ts` and runs in `npm run test:integration`; every other file under
 * test/ but test/e2e runs in `npm test`. The jest configs select by that name.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
/** What starting a process looks like in a test file (directly, or through the helpers that start one). */
const STARTS_A_PROCESS = /startTestRedis|useRedisServer|startWorkers|processes: true|\bfork\(|\bspawn(Sync)?\(|\bexecFile(Sync)?\b|mountTmpfs|npm pack|'pack'/;

function testFiles(dir: string): string[] {
	return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
		const file = `${dir}/${entry.name}`;
		if (entry.isDirectory()) return file === 'test/e2e' ? [] : testFiles(file);
		return file.endsWith('.test.ts') ? [file] : [];
	});
}

it('a test file that starts a process is named *.integration.test.ts; one that starts none is not', () => {
	const files = testFiles('test').filter((file) => file !== 'test/testSuites.test.ts'); // its pattern is not a process
	const startsOne = files.filter((file) => STARTS_A_PROCESS.test(readFileSync(path.join(ROOT, file), 'utf8')));
	const named = files.filter((file) => file.endsWith('.integration.test.ts'));
	expect(startsOne.sort()).toEqual(named.sort());
	expect(named.length).toBeGreaterThan(20);
});

it('each jest config takes its own tier by name', () => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- the jest configs are CommonJS
	const unit = require('../jest.config') as { testPathIgnorePatterns: string[] };
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- the jest configs are CommonJS
	const integration = require('../jest.integration.config') as { testMatch: string[] };
	const ignored = (file: string) => unit.testPathIgnorePatterns.some((pattern) => new RegExp(pattern).test(`/${file}`));
	expect(ignored('test/store/claims.integration.test.ts')).toBe(true);
	expect(ignored('test/e2e/claims.test.ts')).toBe(true);
	expect(ignored('test/store/journalLog.test.ts')).toBe(false);
	expect(integration.testMatch).toEqual(['<rootDir>/test/**/*.integration.test.ts']);
});
