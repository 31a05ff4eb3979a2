/**
 * The folder store (src/coordination/folderRecords.ts) passes the RecordStore contract in this process (the
 * cross-process case: folderRecords.integration.test.ts), and reports a failing step as a FolderRecordError; a
 * change whose lock was taken over before it landed writes nothing and rejects as a busy lock does.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { FolderRecordError, FolderRecords } from '../../src/coordination/folderRecords';
import { ownerRecord, readOwnerRecord, thisOwner } from '../../src/coordination/ownerLiveness';
import { folderStoreUnderTest } from './folderStores';
import { describeRecordStoreContract, increment } from './recordStoreContract';

describeRecordStoreContract('FolderRecords', folderStoreUnderTest);

describe('FolderRecords', () => {
	let root: string;
	beforeEach(() => (root = mkdtempSync(path.join(os.tmpdir(), 'flux-records-'))));
	afterEach(() => rmSync(root, { recursive: true, force: true }));

	it('makes its folder again when it was removed, and syncs each write when durable', async () => {
		const synced: string[] = [];
		const dir = path.join(root, 'records');
		const store = new FolderRecords(dir, { durable: true, sync: async (target, what) => void synced.push(`${what} ${path.basename(target)}`) });
		await store.update('a', increment);
		rmSync(dir, { recursive: true });
		expect(await store.update('a', increment)).toEqual({ ok: true, value: 1 });
		expect(synced.filter((s) => s.startsWith('folder'))).toEqual(['folder records', 'folder records']);
		expect(synced.filter((s) => s.startsWith('file'))).toHaveLength(2);
	});

	it('a failing folder rejects saying at which step, and changes nothing', async () => {
		const notFolder = path.join(root, 'file');
		writeFileSync(notFolder, 'x');
		await expect(new FolderRecords(notFolder, { durable: false }).update('a', increment)).rejects.toMatchObject({ step: 'folder', code: 'EEXIST' });
		const cannotMake = new FolderRecords(path.join(root, 'missing'), { durable: false, makeFolder: async () => Promise.reject(Object.assign(new Error('no'), { code: 'EROFS' })) });
		await expect(cannotMake.update('a', increment)).rejects.toMatchObject({ step: 'folder', code: 'EROFS' });
		const dir = path.join(root, 'records');
		mkdirSync(path.join(dir, 'a'), { recursive: true });
		const store = new FolderRecords(dir, { durable: false });
		await expect(store.read('a')).rejects.toMatchObject({ step: 'read', code: 'EISDIR' });
		await expect(store.update('a', increment)).rejects.toBeInstanceOf(FolderRecordError);
		expect(readdirSync(dir)).toEqual(['a']); // no lock or temporary file left
	});

	it('a change whose lock another owner took over meanwhile writes nothing and rejects as a busy lock (write or remove)', async () => {
		const dir = path.join(root, 'records');
		const store = new FolderRecords(dir, { durable: true });
		await store.update('a', () => ({ text: 'first', result: undefined }));
		/** What a takeover does to the lock file: another owner's lock, with its own nonce, in its place. */
		const takeOver = (owner: string) => {
			writeFileSync(`${store.fileOf('a')}.lock.new`, ownerRecord({ ...thisOwner(), token: owner }));
			renameSync(`${store.fileOf('a')}.lock.new`, `${store.fileOf('a')}.lock`);
		};
		const taken = { step: 'lock', code: 'ELOCKED', busy: true };
		await expect(store.update('a', () => (takeOver('b'), { text: 'lost update', result: 1 }))).rejects.toMatchObject(taken);
		expect(readFileSync(store.fileOf('a'), 'utf8')).toBe('first');
		expect(readOwnerRecord(readFileSync(`${store.fileOf('a')}.lock`, 'utf8'))?.token).toBe('b'); // the new owner's lock is left

		rmSync(`${store.fileOf('a')}.lock`);
		const paused = store.locked('a', async (record) => {
			await record.read();
			takeOver('c'); // while this holder is paused (a slow Redis call): another owner takes the lock
			await record.write(undefined);
		});
		await expect(paused).rejects.toMatchObject(taken);
		expect(readFileSync(store.fileOf('a'), 'utf8')).toBe('first');
		expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
	});
});
