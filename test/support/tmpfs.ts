/**
 * A small tmpfs of a test's own (a real file system: a disk that fills up, or one mounted read-only), mounted
 * on a temp folder and unmounted afterwards. Needs root (CI and the development machines run as root); a
 * machine where `mount` is refused fails the test saying so.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface Tmpfs {
	dir: string;
	/** Remounts it read-only (or writable again). */
	readOnly(on: boolean): void;
	unmount(): void;
}

export function mountTmpfs(sizeKb: number): Tmpfs {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'flux-tmpfs-'));
	try {
		execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k,mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
	} catch (error) {
		rmSync(dir, { recursive: true, force: true });
		throw new Error(`mounting a ${sizeKb} KiB tmpfs needs root: ${String((error as { stderr?: Buffer }).stderr ?? error)}`);
	}
	return {
		dir,
		readOnly: (on) => execFileSync('mount', ['-o', `remount,${on ? 'ro' : 'rw'}`, dir], { stdio: 'pipe' }),
		unmount: () => {
			execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
			rmSync(dir, { recursive: true, force: true });
		},
	};
}
