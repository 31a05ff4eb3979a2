/**
 * The journal's compact logs (src/store/journalLog.ts) across processes: compaction run while two other processes
 * (forked, appending 3,000 lines each) write to the same folder loses no line.
 */
import { type ChildProcess, fork } from 'node:child_process';
import * as path from 'node:path';

import { JournalLog } from '../../src/store/journalLog';
import { makeTempDir } from './tempStore';

describe('JournalLog across processes', () => {
	it('compaction while two other processes append: no line is lost', async () => {
		const temp = makeTempDir();
		const dir = path.join(temp.dir, 'journal');
		const log = new JournalLog(dir);
		const fixture = path.join(__dirname, 'fixtures', 'journalAppender.ts');
		const children: ChildProcess[] = ['A', 'B'].map(() => fork(fixture, [], { execArgv: ['-r', 'ts-node/register/transpile-only'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
		try {
			await Promise.all(children.map((child) => new Promise((resolve) => child.once('message', resolve))));
			const count = 3000;
			const finished = children.map(
				(child) =>
					new Promise<void>((resolve, reject) => {
						child.once('message', (reply: { error?: string }) => (reply.error ? reject(new Error(reply.error)) : resolve()));
					}),
			);
			children.forEach((child, i) => child.send({ dir, me: ['A', 'B'][i], count }));
			let done = false;
			void Promise.all(finished).then(() => (done = true));
			let compactions = 0;
			while (!done) {
				for (const { bucket } of await log.buckets()) await log.compact(bucket, (latest) => latest);
				compactions += 1;
			}
			await Promise.all(finished);
			expect(compactions).toBeGreaterThan(1);
			const names = new Set((await Promise.all((await log.buckets()).map(async ({ bucket }) => (await log.scan(bucket)).entries))).flat().map((e) => e.name));
			const lost = ['A', 'B'].flatMap((me) => Array.from({ length: count }, (_, i) => `${me}-${i}`)).filter((name) => !names.has(name));
			expect(lost).toEqual([]);
		} finally {
			for (const child of children) if (child.exitCode === null) child.kill();
			temp.cleanup();
		}
	});
});
