/** What bench/gcRecorder.js recorded of a process's garbage collections, tallied over a window. */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { knownGcKind } from './gcEvents';

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
 * The collections that started in [from, to] (epoch ms) among the lines of `file`; undefined when the file cannot be
 * read (the process did not record). A line that is not a recorder's (or not complete yet: no newline) is skipped, a
 * kind bench/gcEvents.ts does not know (a newer V8) counts as other. The recorder writes a collection's line a few
 * event-loop turns after it: read a window once the process has gone on past it.
 */
export function gcBetween(file: string, from: number, to: number): GcTally | undefined {
	let text: string;
	try {
		text = readFileSync(file, 'utf8');
	} catch {
		return undefined;
	}
	const tally: GcTally = { pauseMs: 0, major: 0, minor: 0, other: 0 };
	for (const line of text.split('\n').slice(0, -1)) {
		let entry: { at?: unknown; ms?: unknown; kind?: unknown };
		try {
			entry = JSON.parse(line) as typeof entry;
		} catch {
			continue;
		}
		const { at, ms, kind } = entry;
		if (typeof at !== 'number' || typeof ms !== 'number' || typeof kind !== 'number' || at < from || at > to) continue;
		tally.pauseMs += ms;
		const name = knownGcKind(kind);
		if (name === 'major' || name === 'minor') tally[name]++;
		else tally.other++;
	}
	return tally;
}
