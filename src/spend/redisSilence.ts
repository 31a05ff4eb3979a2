/**
 * The store folder's note that a process of this machine just waited a whole Redis deadline for nothing (a file
 * whose age says when): while it is fresh, the others skip Redis under the ledger's lock and use the folder's ledger
 * at once, instead of each holding the lock for a deadline of its own (N processes × 2 s, past the lock's wait
 * budget). Best effort: a note that cannot be read or written only costs that wait.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** How long a note holds others back from Redis (ms): then one process of the machine tries Redis again. */
export const SILENCE_SHARED_MS = 5000;

export class RedisSilence {
	private readonly file: string;

	constructor(dir: string) {
		this.file = path.join(dir, 'redis-silent');
	}

	/** When a process of this machine last found Redis silent (wall ms), if it did; no note: undefined. */
	async notedAt(): Promise<number | undefined> {
		return await fs.stat(this.file).then(
			(info) => info.mtimeMs,
			() => undefined,
		);
	}

	/** Redis did not answer this process within its deadline: noted now for the others. */
	async note(): Promise<void> {
		await fs.writeFile(this.file, String(Date.now())).catch(() => undefined);
	}

	/** Redis answered: the note goes. */
	async clear(): Promise<void> {
		await fs.rm(this.file, { force: true }).catch(() => undefined);
	}
}
