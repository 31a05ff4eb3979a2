/**
 * The pool in a process of its own run with --unhandled-rejections=strict (test/pool/fixtures/unhandledRejections.ts):
 * jobs that fail or are cancelled while nobody waits for them cause no unhandled rejection (and the harness
 * does detect one, its --control run).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

describe('WorkerPool in a strict process', () => {
	it('a failing job that nobody waits for causes no unhandled rejection', async () => {
		const run = (...args: string[]) =>
			promisify(execFile)(
				process.execPath,
				['--unhandled-rejections=strict', '-r', 'ts-node/register/transpile-only', join(__dirname, 'fixtures/unhandledRejections.ts'), ...args],
				{ cwd: join(__dirname, '../..') },
			);
		expect((await run()).stdout).toBe(JSON.stringify({ failed: 2, cancelled: 2, admitted: 0 }));
		await expect(run('--control')).rejects.toMatchObject({ code: 1 }); // the harness does detect them
	});
});
