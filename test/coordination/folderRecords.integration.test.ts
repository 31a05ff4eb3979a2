/** The folder store passes the RecordStore contract, the case of two processes updating one record at once included. */
import { folderStoreUnderTest } from './folderStores';
import { describeRecordStoreContract } from './recordStoreContract';

describeRecordStoreContract('FolderRecords', folderStoreUnderTest, { processes: true });
