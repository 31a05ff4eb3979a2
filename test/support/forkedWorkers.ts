/** Worker processes forked from a ts-node fixture that answer each command with one message (`phase`; `error` rejects). */
import { type ChildProcess, fork } from 'node:child_process';

export interface WorkerReply {
	phase: string;
	error?: string;
}

/** The child's next message; rejects when it says `error` or exits first. */
export function nextReply<R extends WorkerReply>(child: ChildProcess): Promise<R> {
	return new Promise((resolve, reject) => {
		const onExit = (code: number | null) => reject(new Error(`worker exited early (${code})`));
		child.once('exit', onExit);
		child.once('message', (reply: R) => {
			child.off('exit', onExit);
			if (reply.phase === 'error') reject(new Error(reply.error));
			else resolve(reply);
		});
	});
}

/** Forks one worker of `fixture` per command (kept in `children` to be killed after the test), sends each its command, and resolves with them and their first replies. */
export async function startWorkers<R extends WorkerReply>(fixture: string, commands: object[], children: ChildProcess[]): Promise<{ workers: ChildProcess[]; replies: R[] }> {
	const workers = commands.map(() => fork(fixture, [], { execArgv: ['-r', 'ts-node/register/transpile-only'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
	children.push(...workers);
	const ready = workers.map((worker) => nextReply<R>(worker));
	workers.forEach((worker, i) => worker.send(commands[i]));
	return { workers, replies: await Promise.all(ready) };
}
