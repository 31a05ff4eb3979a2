/**
 * Lists a cacache folder's live entries like `cacache.ls`, without its dynamic `import('p-map')`: that import
 * throws inside a VM without --experimental-vm-modules (jest, and so the engine tests, run the package there).
 * Reads each index bucket with cacache's own `bucketEntries` (which drops lines whose hash does not match),
 * keeps the latest entry per key and drops deletions, exactly as `cacache.ls` does (cacache@20, index v5).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { unless } from './fsErrors';

/** One index entry of the result store's cache (`cacache.get.info` / `cacache.ls`): shared by the backend and the index listing. */
export interface CacheEntry {
	key: string;
	integrity: string;
	time: number;
	size?: number;
	metadata?: unknown;
}
/** A bucket line as cacache reads it: no integrity is a deletion. */
type RawEntry = Omit<CacheEntry, 'integrity'> & { integrity?: string | null };
interface EntryIndexModule {
	bucketDir(cache: string): string;
	bucketPath(cache: string, key: string): string;
	bucketEntries(bucket: string): Promise<RawEntry[]>;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const entryIndex = require('cacache/lib/entry-index') as EntryIndexModule;

/** The names in `dir`, none when it is gone (a folder removed as empty meanwhile: cacheBackend.ts). */
const namesIn = (dir: string): Promise<string[]> => unless(fs.readdir(dir), ['ENOENT', 'ENOTDIR'], []);

/** Buckets sit three levels down: <2 hex>/<2 hex>/<rest of the key's hash>; walked a level at a time, so a folder removed during the walk is skipped, not the end of it. */
async function bucketFiles(indexDir: string): Promise<string[]> {
	const files: string[] = [];
	for (const first of await namesIn(indexDir)) {
		for (const second of await namesIn(path.join(indexDir, first))) {
			const folder = path.join(indexDir, first, second);
			for (const name of await namesIn(folder)) files.push(path.join(folder, name));
		}
	}
	return files;
}

/** A bucket's entries; none when it was removed meanwhile (ENOENT) or is a sub-folder (EISDIR). */
const readBucket = (file: string): Promise<RawEntry[]> => unless(entryIndex.bucketEntries(file), ['ENOENT', 'EISDIR'], []);

/** Every live key of the cache at `cache` with its latest entry. */
export async function listCacheIndex(cache: string): Promise<Record<string, CacheEntry>> {
	const out: Record<string, CacheEntry> = {};
	for (const file of await bucketFiles(entryIndex.bucketDir(cache))) {
		const latest = new Map<string, RawEntry>();
		for (const entry of await readBucket(file)) latest.set(entry.key, entry);
		for (const entry of latest.values()) {
			if (!entry.integrity) continue; // a deletion shadows earlier entries
			out[entry.key] = { key: entry.key, integrity: entry.integrity, time: entry.time, size: entry.size, metadata: entry.metadata };
		}
	}
	return out;
}
