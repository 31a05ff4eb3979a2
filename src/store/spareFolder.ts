/**
 * The machine's spare folder of a store folder that cannot be written (read-only, full): claims and journal
 * entries go there instead, in the machine's temporary folder, at one path every process of the machine derives
 * from the same store folder. So two processes still never pay twice for one job while the store folder fails.
 */
import { createHash } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { writeAtomic } from '../coordination/atomicFile';
import type { JournalMirror } from './journal';
import { parseStoredEntry, storedEntryText } from './journalLog';

/** The spare folder of `storeDir` (nothing is created until it is used). */
export function spareFolder(storeDir: string): string {
	const id = createHash('sha256').update(path.resolve(storeDir)).digest('hex').slice(0, 16);
	return path.join(os.tmpdir(), 'n8n-nodes-flux-concurrent-spare', id);
}

const fileOf = (dir: string, name: string) => path.join(dir, `${createHash('sha256').update(name).digest('hex')}.json`);

/**
 * Journal entries the store folder could not take, one small file per entry name in `dir` (written whole:
 * src/coordination/atomicFile.ts), with their revision (journalLog.ts). Best effort: a failure here is the
 * store's fault, already reported; `get` answers undefined for anything unreadable.
 */
export function spareJournal(dir: string): JournalMirror {
	return {
		get: async (name) => {
			// Almost always absent (the store folder works): one stat, not a failed open and its error, per journal read.
			if (!existsSync(dir)) return undefined;
			return parseStoredEntry(name, await fs.readFile(fileOf(dir, name), 'utf8').catch(() => undefined), 'value');
		},
		put: async (entry) => {
			try {
				await fs.mkdir(dir, { recursive: true, mode: 0o700 });
				await writeAtomic(fileOf(dir, entry.name), storedEntryText(entry, 'value'), { durable: false });
				return true;
			} catch {
				return false;
			}
		},
	};
}
