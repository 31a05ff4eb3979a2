/** A fresh temporary folder per test (real files on disk), removed afterwards. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export function makeTempDir(): { dir: string; cleanup(): void } {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'flux-store-'));
	return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A fresh temporary folder for each test of the file (`temp.dir`), removed after it: call at the top of a test file. */
export function useTempDir(): { readonly dir: string } {
	let current: ReturnType<typeof makeTempDir> | undefined;
	beforeEach(() => {
		current = makeTempDir();
	});
	afterEach(() => current?.cleanup());
	return {
		get dir(): string {
			if (!current) throw new Error('useTempDir: temp.dir is only there inside a test');
			return current.dir;
		},
	};
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
