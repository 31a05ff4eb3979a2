/**
 * The one-time n8n install's lock across processes: the package's folder lock (src/coordination/folderLock.ts)
 * at `lockFile`, taken over at once from a dead process, waited for up to 30 minutes while another installs.
 */
import { promises as fsp } from 'node:fs';

import { FolderLock } from '../../src/coordination/folderLock';
import { readOwnerRecord } from '../../src/coordination/ownerLiveness';
import type { LogFn } from './processes';

const WAIT_MS = 30 * 60 * 1000;
const installLock = new FolderLock({ lapseMs: 60_000, touchMs: 10_000 });

export async function withLock<T>(lockFile: string, log: LogFn, fn: () => Promise<T>): Promise<T> {
	let held = await installLock.tryLock(lockFile);
	if (!held) {
		const pid = readOwnerRecord(await fsp.readFile(lockFile, 'utf8').catch(() => ''))?.pid ?? 'unknown';
		log(`waiting for another process (pid ${pid}) installing n8n...`);
		held = await installLock.lock(lockFile, WAIT_MS, { minMs: 2000, maxMs: 2000 });
		if (!held) throw new Error(`Timed out waiting for the lock ${lockFile} (held by pid ${pid})`);
	}
	try {
		return await fn();
	} finally {
		await held.release();
	}
}
