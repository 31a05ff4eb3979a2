/** A fresh temporary folder per test (real files on disk), removed afterwards. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export function makeTempDir(): { dir: string; cleanup(): void } {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'flux-store-'));
	return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Every regular file below `dir`, with its bytes (to assert what never reaches the disk). */
export function allFiles(dir: string): { file: string; bytes: Buffer }[] {
	const out: { file: string; bytes: Buffer }[] = [];
	for (const name of readdirSync(dir, { recursive: true }) as string[]) {
		const file = path.join(dir, name);
		if (statSync(file).isFile()) out.push({ file, bytes: readFileSync(file) });
	}
	return out;
}
