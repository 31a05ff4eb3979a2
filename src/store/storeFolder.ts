/** Creates the store folder if missing, readable by the n8n user only (mode 0700). */
import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';

import { codeOf } from './fsErrors';

/** The nearest folder of `dir` (itself or a parent) that exists. */
async function nearestExisting(dir: string): Promise<string> {
	for (let at = dir; ; at = path.dirname(at)) {
		if (await fs.stat(at).then(() => true, () => false)) return at;
		if (path.dirname(at) === at) return at;
	}
}

/**
 * Why a folder could not be created when mkdir only said ENOENT (Node's recursive mkdir on a read-only file
 * system): the nearest existing parent is read-only or not writable. The error otherwise.
 */
async function explainMkdirFailure(dir: string, error: unknown): Promise<unknown> {
	if (codeOf(error) !== 'ENOENT') return error;
	const parent = await nearestExisting(path.dirname(dir));
	try {
		await fs.access(parent, constants.W_OK);
		return error;
	} catch (denied) {
		const code = codeOf(denied);
		if (code === 'EROFS') return Object.assign(new Error(`cannot create ${dir}: ${parent} is on a read-only file system`), { code });
		if (code === 'EACCES' || code === 'EPERM') return Object.assign(new Error(`cannot create ${dir}: ${parent} is not writable`), { code });
		return error;
	}
}

/**
 * Ensures `dir` exists as a folder; a new one (and new parents) gets mode 0700. Rejects (saying why) if it cannot.
 * Callers ask per job, and the folder is nearly always there: one stat answers that (a recursive mkdir of an
 * existing folder costs a mkdir and a stat, then the check a second stat); anything else takes the full path.
 */
export async function ensureStoreFolder(dir: string): Promise<void> {
	if (await fs.stat(dir).then((stat) => stat.isDirectory(), () => false)) return;
	const created = await fs.mkdir(dir, { recursive: true, mode: 0o700 }).catch(async (error: unknown) => {
		throw await explainMkdirFailure(dir, error);
	});
	if (created !== undefined) await fs.chmod(dir, 0o700);
	if (!(await fs.stat(dir)).isDirectory()) throw Object.assign(new Error(`${dir} is not a folder`), { code: 'ENOTDIR' });
}
