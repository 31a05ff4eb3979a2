/**
 * Puts a complete file in place as a content file of the store: hard-linked (copied where a link cannot be made:
 * another disk, or a filesystem without hard links) under a temporary name beside the target, then renamed over
 * it. An existing content file of that name is replaced, never trusted (it may be corrupt); the source stays.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, link, rename, rm } from 'node:fs/promises';

/** Link errors that mean "no hard link here" (not a fault of the store): EXDEV another disk, EPERM/ENOTSUP/EOPNOTSUPP no links, EMLINK too many. */
const NO_LINK_CODES = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK']);

/** Suffix of a content file being placed (left only by a process killed between two calls). */
export const PLACING_SUFFIX = '.adopting';

export async function placeContentFile(source: string, target: string): Promise<void> {
	const staged = `${target}.${randomUUID()}${PLACING_SUFFIX}`;
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
