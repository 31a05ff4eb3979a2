/**
 * sqlite3, the one native module n8n needs, is an N-API module: one build runs on every Node.js. The
 * n8n versions of the matrix that depend on the same sqlite3 version share the first build
 * (`<cache>/sqlite3-<version>/node_sqlite3.node`) instead of compiling it again (about 3 minutes each).
 */
import { existsSync, promises as fsp } from 'node:fs';
import * as path from 'node:path';

import { n8nCacheRoot } from './nodeRuntime';

function builtBinary(installDir: string): string {
	return path.join(installDir, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node');
}

async function sharedBinary(installDir: string): Promise<string | undefined> {
	try {
		const pkg = JSON.parse(await fsp.readFile(path.join(installDir, 'node_modules', 'sqlite3', 'package.json'), 'utf8')) as { version?: string };
		return pkg.version ? path.join(n8nCacheRoot(), `sqlite3-${pkg.version}`, 'node_sqlite3.node') : undefined;
	} catch {
		return undefined;
	}
}

/** Put the shared build of this install's sqlite3 version in place; false when there is none. */
export async function reuseSqliteBuild(installDir: string): Promise<boolean> {
	const shared = await sharedBinary(installDir);
	if (!shared || !existsSync(shared)) return false;
	await fsp.mkdir(path.dirname(builtBinary(installDir)), { recursive: true });
	await fsp.copyFile(shared, builtBinary(installDir));
	return true;
}

/** Keep this install's sqlite3 build for the other versions (written whole, then renamed into place). */
export async function shareSqliteBuild(installDir: string): Promise<void> {
	const shared = await sharedBinary(installDir);
	if (!shared || existsSync(shared) || !existsSync(builtBinary(installDir))) return;
	await fsp.mkdir(path.dirname(shared), { recursive: true });
	const partial = `${shared}.${process.pid}.partial`;
	await fsp.copyFile(builtBinary(installDir), partial);
	await fsp.rename(partial, shared);
}
