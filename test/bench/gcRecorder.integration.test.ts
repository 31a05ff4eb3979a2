/**
 * The GC recorder preloaded into a measured process (bench/gcRecorder.js): a real Node process with the preload
 * records its collections on the wall clock, a forced full one told apart; nothing without its environment variable.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { gcBetween, GC_LOG_ENV, GC_RECORDER } from '../../bench/gcLog';

describe('GC recorder', () => {
	let dir: string;
	beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'flux-gc-recorder-'))));
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	it('a process with the preload records its collections on the wall clock: a forced full one is counted as major, at the time it ran', () => {
		const file = path.join(dir, 'gc.jsonl');
		// Young-generation garbage, then one full collection at a time the child prints; the observer's callback runs before the process exits.
		const script = "let a = []; for (let i = 0; i < 300000; i++) a.push({ i, s: 'x' + i }); a = null; const at = Date.now(); global.gc(); console.log(at, Date.now()); setTimeout(() => {}, 50);";
		const [gcFrom, gcTo] = execFileSync(process.execPath, ['--expose-gc', '--require', GC_RECORDER, '-e', script], { env: { ...process.env, [GC_LOG_ENV]: file } })
			.toString()
			.trim()
			.split(' ')
			.map(Number);
		// Only the forced collection started between the two readings around global.gc() (to the ms of Date.now()).
		const forced = gcBetween(file, gcFrom - 1, gcTo + 1);
		expect(forced).toEqual({ pauseMs: expect.any(Number), major: 1, minor: 0, other: 0 });
		expect(forced!.pauseMs).toBeGreaterThan(0);
		const before = gcBetween(file, 0, gcFrom - 2); // the young garbage's collections, before it
		expect(before!.minor).toBeGreaterThanOrEqual(1);
		expect(before!.major).toBe(0);
	});

	it('without the environment variable the preload records nothing', () => {
		const file = path.join(dir, 'gc.jsonl');
		const env = { ...process.env };
		delete env[GC_LOG_ENV];
		execFileSync(process.execPath, ['--expose-gc', '--require', GC_RECORDER, '-e', 'global.gc()'], { env });
		expect(gcBetween(file, 0, Date.now())).toBeUndefined();
	});
});
