/**
 * The download folders (`image-downloads`, `video-downloads`) next to the result store, where a result streams in
 * before the store adopts it (same disk: a link, not a copy), and their sweep of files no pool can hand out any more.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import * as path from 'node:path';

import { settings } from '../config';
import { getStore, type Store } from '../store';
import { ensureStoreFolder } from '../store/storeFolder';

const HOUR_MS = 60 * 60 * 1000;
/** A `.part` file is a download a killed process left behind once it is older than the longest job (24 h). */
const PART_KEPT_MS = 25 * HOUR_MS;
const KINDS = ['image', 'video'] as const;
type DownloadKind = (typeof KINDS)[number];

/**
 * How long a download file (image or clip) is kept: a finished one (Cache Off, or a store fault) as long as the
 * pool may hand its result to a collector plus an hour; a `.part` file {@link PART_KEPT_MS}.
 */
export function downloadKeptMs(name: string): number {
	return name.endsWith('.part') ? PART_KEPT_MS : settings().pool.resultTtlMs + HOUR_MS;
}

/** The folder downloads of one kind stream into: next to the result store (same disk, same 0700 parent). */
export function downloadDir(kind: DownloadKind, store: Store = getStore()): string {
	return path.join(store.results.rootDir, `${kind}-downloads`);
}

/** Creates the download folder (0700); resolves undefined when it cannot be (then images are downloaded into memory). */
export async function readyDownloadDir(kind: DownloadKind, store: Store = getStore()): Promise<string | undefined> {
	const dir = downloadDir(kind, store);
	try {
		await ensureStoreFolder(dir);
		return dir;
	} catch {
		return undefined;
	}
}

/**
 * Removes download files a pool can no longer hand out (downloadKeptMs), and what a killed process left in the
 * result store's tmp folder (a file being adopted or written) after 25 h. Never throws.
 */
export async function sweepDownloads(store: Store = getStore(), now = Date.now()): Promise<void> {
	for (const kind of KINDS) await sweepFolder(downloadDir(kind, store), now, downloadKeptMs);
	await sweepFolder(path.join(store.results.cacheDir, 'tmp'), now, () => PART_KEPT_MS);
}

/** How often a process sweeps (each job asks): a sweep stats every file, so a burst of jobs sweeps once. */
export const SWEEP_EVERY_MS = 60_000;
const lastSweeps = new Map<string, number>();

/** {@link sweepDownloads}, unless this process swept the store's folders less than {@link SWEEP_EVERY_MS} ago. */
export async function sweepDownloadsNowAndThen(store: Store = getStore(), now = Date.now()): Promise<void> {
	const root = store.results.rootDir;
	if (now - (lastSweeps.get(root) ?? -Infinity) < SWEEP_EVERY_MS) return;
	lastSweeps.set(root, now);
	await sweepDownloads(store, now);
}

/** Removes the files of `dir` last written more than `keptMsOf(name)` before `now`. Never throws. */
async function sweepFolder(dir: string, now: number, keptMsOf: (name: string) => number): Promise<void> {
	try {
		for (const name of await readdir(dir)) {
			const file = path.join(dir, name);
			const info = await stat(file).catch(() => undefined);
			if (info?.isFile() && now - info.mtimeMs > keptMsOf(name)) await rm(file, { force: true });
		}
	} catch {
		// no folder yet, or unreadable: nothing to sweep
	}
}
