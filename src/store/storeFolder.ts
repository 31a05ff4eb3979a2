/** Creates the store folder if missing, readable by the n8n user only (mode 0700). */
import { promises as fs } from 'node:fs';

/** Ensures `dir` exists as a folder; a new one (and new parents) gets mode 0700. Rejects if it cannot. */
export async function ensureStoreFolder(dir: string): Promise<void> {
	const created = await fs.mkdir(dir, { recursive: true, mode: 0o700 });
	if (created !== undefined) await fs.chmod(dir, 0o700);
	const stat = await fs.stat(dir);
	if (!stat.isDirectory()) {
		throw Object.assign(new Error(`${dir} is not a folder`), { code: 'ENOTDIR' });
	}
}
