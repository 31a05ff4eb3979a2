/**
 * The folder lock between real processes: the lock of a process killed with SIGKILL is taken over at once (its
 * owner is visibly gone, long before the lapse); a live process's lock never is, however long it holds it (and
 * however late this process's clock says it is); three processes racing to take over one dead process's lock:
 * exactly one wins, round after round.
 */
import type { ChildProcess } from 'node:child_process';
import * as path from 'node:path';

import { FolderLock } from '../../src/coordination/folderLock';
import { nextReply, startWorkers, type WorkerReply } from '../support/forkedWorkers';
import { useTempDir } from '../store/tempStore';

type Reply = WorkerReply & { won?: boolean; tookOver?: boolean };
const WORKER = path.join(__dirname, 'fixtures', 'lockWorker.ts');
const HOUR = 3_600_000;
const temp = useTempDir();
const children: ChildProcess[] = [];
afterEach(() => {
	for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function ask(worker: ChildProcess, message: string): Promise<Reply> {
	const reply = nextReply<Reply>(worker);
	worker.send(message);
	return await reply;
}

it("a killed process's lock is taken over at once; a live process's never", async () => {
	const file = path.join(temp.dir, 'a.lock');
	const { workers } = await startWorkers<Reply>(WORKER, [{ file, lapseMs: HOUR }, { file, lapseMs: HOUR }], children);
	const [holder, next] = workers;
	expect(await ask(holder, 'try')).toMatchObject({ won: true });

	expect(await ask(next, 'try')).toMatchObject({ won: false });
	expect(await new FolderLock({ lapseMs: HOUR, touchMs: 50 }, undefined, () => Date.now() + 24 * HOUR).tryLock(file)).toBeUndefined();

	const exited = new Promise((resolve) => holder.once('exit', resolve));
	holder.kill('SIGKILL');
	await exited;
	expect(await ask(next, 'try')).toMatchObject({ won: true, tookOver: true });
	expect(await new FolderLock({ lapseMs: HOUR, touchMs: 50 }).tryLock(file)).toBeUndefined();
});

it("three processes racing to take over a killed process's lock: exactly one wins each round", async () => {
	const file = path.join(temp.dir, 'b.lock');
	const command = { file, lapseMs: HOUR };
	const { workers } = await startWorkers<Reply>(WORKER, [command, command, command, command, command, command], children);
	const racers = workers.slice(0, 3);
	for (const holder of workers.slice(3)) {
		expect(await ask(holder, 'try')).toMatchObject({ won: true });
		const exited = new Promise((resolve) => holder.once('exit', resolve));
		holder.kill('SIGKILL');
		await exited;
		const replies = await Promise.all(racers.map(async (racer) => await ask(racer, 'try')));
		expect(replies.filter((reply) => reply.won)).toHaveLength(1);
		await Promise.all(racers.map(async (racer) => await ask(racer, 'release')));
	}
});
