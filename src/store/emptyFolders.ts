/* eslint-disable @n8n/community-nodes/require-node-api-error -- src/store knows nothing of n8n nodes: filesystem errors reach the store's health. */
/**
 * cacache fans its index and content out into two levels of folders (`<2 hex>/<2 hex>/`) and never removes one:
 * after thousands of distinct jobs the empty folders alone take more disk than the store's bound (4 KiB each).
 * `removeEmptyFolders` removes a removed file's folder and its parent when they are empty; a writer that made
 * such a folder a moment before and lost it meanwhile gets ENOENT, and `againIfFolderVanished` writes once more.
 */
import { rmdir } from 'node:fs/promises';
import * as path from 'node:path';

import { codeOf } from './fsErrors';

/** Removes `file`'s folder and the `levels - 1` folders above it, each only when empty, never `root` or above. */
export async function removeEmptyFolders(root: string, file: string, levels = 2): Promise<void> {
	let folder = path.dirname(file);
	for (let level = 0; level < levels && folder.startsWith(root + path.sep); level++, folder = path.dirname(folder)) {
		try {
			await rmdir(folder);
		} catch (error) {
			if (codeOf(error) === 'ENOENT') continue; // gone already
			return; // ENOTEMPTY / EEXIST: in use; anything else: leave it
		}
	}
}

/** Runs `write`; when it fails with ENOENT (its folder was removed as empty while it wrote), runs it once more. */
export async function againIfFolderVanished<T>(write: () => Promise<T>): Promise<T> {
	try {
		return await write();
	} catch (error) {
		if (codeOf(error) !== 'ENOENT') throw error;
		return await write();
	}
}
