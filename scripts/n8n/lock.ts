/** A crude cross-process lock on a folder (mkdir is atomic), for the one-time n8n install. */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

import type { LogFn } from './processes';

function isPidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** A crude cross-process lock (mkdir is atomic); stale locks (dead pid) are taken over. */
export async function withLock<T>(lockDir: string, log: LogFn, fn: () => Promise<T>): Promise<T> {
	const deadline = Date.now() + 30 * 60 * 1000;
	let announced = false;
	for (;;) {
		try {
			await fsp.mkdir(lockDir);
			await fsp.writeFile(path.join(lockDir, 'pid'), String(process.pid));
			break;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
			const pid = Number(await fsp.readFile(path.join(lockDir, 'pid'), 'utf8').catch(() => '0'));
			const age = await fsp
				.stat(lockDir)
				.then((s) => Date.now() - s.mtimeMs)
				.catch(() => 0);
			if ((pid > 0 && !isPidAlive(pid)) || (pid === 0 && age > 60_000)) {
				await fsp.rm(lockDir, { recursive: true, force: true });
				continue;
			}
			if (Date.now() > deadline) throw new Error(`Timed out waiting for the lock ${lockDir} (held by pid ${pid})`);
			if (!announced) log(`waiting for another process (pid ${pid}) installing n8n...`);
			announced = true;
			await new Promise((r) => setTimeout(r, 2000));
		}
	}
	try {
		return await fn();
	} finally {
		await fsp.rm(lockDir, { recursive: true, force: true });
	}
}
