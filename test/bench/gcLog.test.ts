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

	it('a process with the preload records its collections: a forced full one is counted as major, with its pause', () => {
		const file = path.join(dir, 'gc.jsonl');
		const before = Date.now();
		// Young-generation garbage, then one full collection; the observer's callback runs before the process exits.
		const script = "let a = []; for (let i = 0; i < 300000; i++) a.push({ i, s: 'x' + i }); a = null; global.gc(); setTimeout(() => {}, 50);";
		execFileSync(process.execPath, ['--expose-gc', '--require', GC_RECORDER, '-e', script], { env: { ...process.env, [GC_LOG_ENV]: file } });
		const tally = gcBetween(file, before, Date.now());
		expect(tally).toBeDefined();
		expect(tally!.major).toBeGreaterThanOrEqual(1);
		expect(tally!.minor).toBeGreaterThanOrEqual(1);
		expect(tally!.pauseMs).toBeGreaterThan(0);
		expect(gcBetween(file, 0, before - 1)).toEqual({ pauseMs: 0, major: 0, minor: 0, other: 0 }); // outside the window
	});

	it('without the environment variable the preload records nothing', () => {
		const file = path.join(dir, 'gc.jsonl');
		const env = { ...process.env };
		delete env[GC_LOG_ENV];
		execFileSync(process.execPath, ['--expose-gc', '--require', GC_RECORDER, '-e', 'global.gc()'], { env });
		expect(gcBetween(file, 0, Date.now())).toBeUndefined();
	});

	it("tallies a window's lines by kind; a line still being written is left out; a damaged file reads as not recorded", () => {
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
		writeFileSync(file, lines.join('') + 'not json\n');
		expect(gcBetween(file, 1000, 2000)).toBeUndefined();
		writeFileSync(file, JSON.stringify({ at: 1000, ms: 1, kind: 64 }) + '\n');
		expect(gcBetween(file, 0, 2000)).toBeUndefined();
	});
});
