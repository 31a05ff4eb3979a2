/** What bench/gcRecorder.js recorded of a process's garbage collections, tallied over a window. */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { gcKindOf } from './gcEvents';

/** The preload to give a measured process (`--require`), with FLUX_BENCH_GC_LOG naming its file. */
export const GC_RECORDER = path.join(__dirname, 'gcRecorder.js');
export const GC_LOG_ENV = 'FLUX_BENCH_GC_LOG';

/** The main thread's collections in a window: their pauses added up (ms), and how many of each kind. */
export interface GcTally {
	pauseMs: number;
	/** Full mark-compacts (the whole heap). */
	major: number;
	/** Young-generation collections. */
	minor: number;
	/** Starts of incremental marking and weak-callback processing. */
	other: number;
}

/**
 * The collections that started in [from, to] (epoch ms) among the lines of `file` (kinds as bench/gcEvents.ts reads
 * them); undefined when the file cannot be read (the process did not record) or holds a line that is not a recorder's.
 */
export function gcBetween(file: string, from: number, to: number): GcTally | undefined {
	let text: string;
	try {
		text = readFileSync(file, 'utf8');
	} catch {
		return undefined;
	}
	const tally: GcTally = { pauseMs: 0, major: 0, minor: 0, other: 0 };
	// Complete lines only: a line still being appended (no newline yet) is the recorder's next.
	for (const line of text.split('\n').slice(0, -1)) {
		try {
			const { at, ms, kind } = JSON.parse(line) as { at?: unknown; ms?: unknown; kind?: unknown };
			if (typeof at !== 'number' || typeof ms !== 'number' || typeof kind !== 'number') return undefined;
			if (at < from || at > to) continue;
			const name = gcKindOf(kind);
			tally.pauseMs += ms;
			if (name === 'major' || name === 'minor') tally[name]++;
			else tally.other++;
		} catch {
			return undefined; // not JSON, or a kind V8 does not define
		}
	}
	return tally;
}
