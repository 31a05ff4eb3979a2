/**
 * Puts a complete file in place as a content file of the store: hard-linked (copied where a link cannot be made:
 * another disk, or a filesystem without hard links) under a temporary name in `stagingDir` (same disk as the
 * target: cacache's tmp folder), then renamed over it. An existing content file of that name is replaced, never
 * trusted (it may be corrupt); the source stays.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, link, mkdir, rename, rm } from 'node:fs/promises';
import * as path from 'node:path';

/** Link errors that mean "no hard link here" (not a fault of the store): EXDEV another disk, EPERM/ENOTSUP/EOPNOTSUPP no links, EMLINK too many. */
const NO_LINK_CODES = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK']);

export async function placeContentFile(source: string, target: string, stagingDir: string): Promise<void> {
	await mkdir(stagingDir, { recursive: true });
	const staged = path.join(stagingDir, `adopt-${randomUUID()}`); // left only by a process killed between two calls
	try {
		await link(source, staged).catch(async (error: unknown) => {
			if (!NO_LINK_CODES.has((error as { code?: string }).code ?? '')) throw error;
			await copyFile(source, staged);
		});
		await rename(staged, target);
	} catch (error) {
		await rm(staged, { force: true }).catch(() => undefined);
		// eslint-disable-next-line @n8n/community-nodes/require-node-api-error -- src/store knows nothing of n8n nodes
		throw error;
	}
}
