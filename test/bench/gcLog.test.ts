/** The reading of the GC recorder's lines (bench/gcLog.ts): a window's tally by kind, lines not a recorder's. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { gcBetween } from '../../bench/gcLog';

describe('GC log', () => {
	let dir: string;
	beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'flux-gc-log-'))));
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

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
