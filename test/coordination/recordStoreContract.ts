/**
 * The cases every RecordStore (src/coordination/records.ts) must pass, whatever place it keeps its records in (a
 * folder, a Redis): `describeRecordStoreContract(name, makeStore)` declares them in the calling test file. Each
 * test gets a store from `makeStore` (closed after it through `close`). The cross-process case is declared only
 * when asked (`processes`): it forks processes that make a store on the same place (`inChild`), so it belongs in
 * an `*.integration.test.ts`.
 */
import type { ChildProcess } from 'node:child_process';
import * as path from 'node:path';

import type { Answer, RecordStore } from '../../src/coordination/records';
import { nextReply, startWorkers, type WorkerReply } from '../support/forkedWorkers';

export interface StoreUnderTest {
	store: RecordStore;
	/**
	 * How another process makes a store on the same place: `module` (an absolute path) exports
	 * `makeRecordStore(arg)` returning a RecordStore (or a promise of one); `arg` is sent to it as JSON.
	 */
	inChild?: { module: string; arg: unknown };
	/** A mark that changes with every write of the record (a folder: the file's inode and mtime); absent: not checked. */
	writeMark?: (name: string) => Promise<string | undefined>;
	close?: () => Promise<void>;
}

const WORKER = path.join(__dirname, 'fixtures', 'recordStoreWorker.ts');

/** One more than the number in the record (none: 0). */
export const increment = (text: string | undefined): { text: string; result: number } => {
	const next = Number(text ?? '0') + 1;
	return { text: String(next), result: next };
};

function value<T>(answer: Answer<T>): T {
	if (!answer.ok) throw new Error(`the store could not be used: ${answer.reason}`);
	return answer.value;
}

/** `processes`: also the case of two processes updating one record (it forks: for an `*.integration.test.ts`; the store must give `inChild`). */
export function describeRecordStoreContract(name: string, makeStore: () => Promise<StoreUnderTest>, options: { processes?: boolean } = {}): void {
	describe(`${name}: the RecordStore contract`, () => {
		let subject: StoreUnderTest;
		let store: RecordStore;
		const children: ChildProcess[] = [];

		beforeEach(async () => {
			subject = await makeStore();
			store = subject.store;
		});
		afterEach(async () => {
			for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
			await subject.close?.();
		});

		it('reads an absent record as undefined', async () => {
			expect(await store.read('absent')).toEqual({ ok: true, value: undefined });
		});

		it('applies an update: the change sees the text there now, its result is answered, its text is read back', async () => {
			const seen: Array<string | undefined> = [];
			expect(await store.update('r', (text) => (seen.push(text), { text: 'one', result: 1 }))).toEqual({ ok: true, value: 1 });
			expect(await store.update('r', (text) => (seen.push(text), { text: 'two', result: 'b' }))).toEqual({ ok: true, value: 'b' });
			expect(seen).toEqual([undefined, 'one']);
			expect(await store.read('r')).toEqual({ ok: true, value: 'two' });
			expect(await store.read('other')).toEqual({ ok: true, value: undefined });
		});

		it('applies every one of many concurrent updates from this process (none lost)', async () => {
			const results = await Promise.all(Array.from({ length: 25 }, async () => value(await store.update('counter', increment))));
			expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
			expect(value(await store.read('counter'))).toBe('25');
		});

		it('removes the record when the change answers undefined', async () => {
			value(await store.update('gone', () => ({ text: 'here', result: undefined })));
			expect(await store.update('gone', (text) => ({ text: undefined, result: text }))).toEqual({ ok: true, value: 'here' });
			expect(await store.read('gone')).toEqual({ ok: true, value: undefined });
			expect(await store.update('gone', (text) => ({ text: undefined, result: text }))).toEqual({ ok: true, value: undefined });
		});

		it('changes nothing when the change throws, and rejects with its error', async () => {
			value(await store.update('kept', () => ({ text: 'before', result: undefined })));
			await expect(
				store.update('kept', () => {
					throw new Error('the change failed');
				}),
			).rejects.toThrow('the change failed');
			expect(await store.read('kept')).toEqual({ ok: true, value: 'before' });
			expect(await store.update('kept', (text) => ({ text: `${text} after`, result: 2 }))).toEqual({ ok: true, value: 2 }); // still usable
			expect(await store.read('kept')).toEqual({ ok: true, value: 'before after' });
		});

		it('writes nothing when the change answers the same text', async () => {
			value(await store.update('same', () => ({ text: 'x', result: undefined })));
			const before = await subject.writeMark?.('same');
			expect(await store.update('same', (text) => ({ text, result: 'unchanged' }))).toEqual({ ok: true, value: 'unchanged' });
			expect(await subject.writeMark?.('same')).toBe(before);
			expect(await store.read('same')).toEqual({ ok: true, value: 'x' });
		});

		if (!options.processes) return;
		it('applies every update of two processes updating one record at once (none lost)', async () => {
			if (!subject.inChild) throw new Error(`${name}: the store under test does not say how a child process makes one (inChild)`);
			const command = { ...subject.inChild, name: 'shared', count: 40, parallel: 4 };
			const { workers, replies } = await startWorkers<WorkerReply>(WORKER, [command, command], children);
			expect(replies.map((r) => r.phase)).toEqual(['ready', 'ready']);
			const done = workers.map((worker) => nextReply<WorkerReply & { results?: number[] }>(worker));
			for (const worker of workers) worker.send('go');
			const here = await Promise.all(Array.from({ length: 10 }, async () => value(await store.update('shared', increment))));
			const all = [...here, ...(await Promise.all(done)).flatMap((r) => r.results ?? [])];
			expect(all.sort((a, b) => a - b)).toEqual(Array.from({ length: 90 }, (_, i) => i + 1));
			expect(value(await store.read('shared'))).toBe('90');
		});
	});
}
