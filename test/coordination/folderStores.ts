/** The folder store under the RecordStore contract: a fresh temporary folder per test, removed after it. */
import { promises as fs, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { FolderRecords } from '../../src/coordination/folderRecords';
import type { StoreUnderTest } from './recordStoreContract';

export async function folderStoreUnderTest(): Promise<StoreUnderTest> {
	const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'flux-records-')), 'records'); // made by the first update
	const store = new FolderRecords(dir, { durable: true });
	return {
		store,
		inChild: { module: path.join(__dirname, 'fixtures', 'folderRecordsStore.ts'), arg: { dir } },
		writeMark: async (name) => {
			const info = await fs.stat(store.fileOf(name), { bigint: true }).catch(() => undefined);
			return info && `${info.ino}:${info.mtimeNs}`;
		},
		close: async () => rmSync(path.dirname(dir), { recursive: true, force: true }),
	};
}
