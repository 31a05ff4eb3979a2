/**
 * The GC recorder preloaded into a measured process (bench/gcRecorder.js) and its reading (bench/gcLog.ts): a real
 * Node process with the preload records its collections, a full one told apart; the window and damaged files.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { gcBetween, GC_LOG_ENV, GC_RECORDER } from '../../bench/gcLog';

describe('GC log', () => {
	let dir: string;
	beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'flux-gc-log-'))));
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

	it("tallies a window's lines by kind; a line still being written and lines not a recorder's are left out", () => {
		const file = path.join(dir, 'gc.jsonl');
		const lines = [
			{ at: 1000, ms: 2, kind: 1 },
			{ at: 1500, ms: 30, kind: 4 },
			{ at: 1600, ms: 1, kind: 8 },
			{ at: 1700, ms: 3, kind: 2 },
			{ at: 2500, ms: 40, kind: 4 },
		].map((line) => JSON.stringify(line) + '\n');
		writeFileSync(file, lines.join('') + '{"at":1800,"ms":');
		expect(gcBetween(file, 1000, 2000)).toEqual({ pauseMs: 36, major: 1, minor: 2, other: 1 });
		// A line that is not a recorder's is skipped; a kind V8 may add later counts as other.
		writeFileSync(file, 'not json\n' + lines.join('') + JSON.stringify({ at: 1900, ms: 1, kind: 64 }) + '\n' + '{"at":1950}\n');
		expect(gcBetween(file, 1000, 2000)).toEqual({ pauseMs: 37, major: 1, minor: 2, other: 2 });
		expect(gcBetween(path.join(dir, 'absent.jsonl'), 0, 2000)).toBeUndefined(); // not recorded
	});
});
