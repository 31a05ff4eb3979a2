/**
 * A real redis-server of a test's own, on a free loopback port, never a shared one
 * (`--bind 127.0.0.1 --save '' --appendonly no`, optionally `--requirepass`): started, killed (SIGKILL, as a
 * crash) and started again on the same port, frozen (SIGSTOP: the socket stays open, nothing answers) and
 * thawed (SIGCONT), stopped. Ready means it answered PING.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as net from 'node:net';
import { Redis } from 'ioredis';

export interface TestRedisOptions {
	/** Started with `--requirepass` (the `url` and `client()` carry it). */
	password?: string;
}

export interface TestRedis {
	port: number;
	url: string;
	/** Stops the process (SIGSTOP): connections stay open, no command is answered until `thaw`. */
	freeze(): void;
	/** Lets a frozen server run again (SIGCONT). */
	thaw(): void;
	/** Whether the process is stopped right now (Linux /proc: state T). */
	frozen(): boolean;
	/** Kills the server at once (SIGKILL), as a crash; its data is gone. */
	kill(): Promise<void>;
	/** Starts it again on the same port (after `kill`). */
	restart(): Promise<void>;
	/** A new client (close it). */
	client(): Redis;
	stop(): Promise<void>;
}

const REDIS_BIN = process.env.REDIS_SERVER_BIN ?? 'redis-server';

export async function freePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const port = (server.address() as net.AddressInfo).port;
			server.close(() => resolve(port));
		});
	});
}

/** A raw RESP PING on a fresh socket (no client library: nothing left behind when it fails), after AUTH when a password is set. */
async function answersPing(port: number, password?: string): Promise<boolean> {
	return await new Promise<boolean>((resolve) => {
		const socket = net.connect({ host: '127.0.0.1', port });
		let answer = '';
		const done = (ok: boolean) => {
			socket.destroy();
			resolve(ok);
		};
		socket.setTimeout(1000, () => done(false));
		socket.on('error', () => done(false));
		socket.on('connect', () => socket.write(password === undefined ? 'PING\r\n' : `AUTH ${password}\r\nPING\r\n`));
		socket.on('data', (chunk: Buffer) => {
			answer += chunk.toString();
			if (answer.split('\r\n').length > (password === undefined ? 1 : 2)) done(answer.endsWith('+PONG\r\n'));
		});
	});
}

function launch(port: number, password?: string): ChildProcess {
	const auth = password === undefined ? [] : ['--requirepass', password];
	const child = spawn(REDIS_BIN, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...auth], { stdio: 'ignore' });
	child.on('error', () => undefined);
	return child;
}

async function waitUntil(check: () => Promise<boolean>, what: string, attempts = 200): Promise<void> {
	for (let i = 0; i < attempts; i++) {
		if (await check()) return;
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
	throw new Error(`redis-server: ${what}`);
}

async function exited(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	await new Promise((resolve) => child.once('exit', resolve));
}

/** Starts a redis-server on a free loopback port; resolves once it answers PING. */
export async function startTestRedis(options: TestRedisOptions = {}): Promise<TestRedis> {
	const { password } = options;
	const port = await freePort();
	let child = launch(port, password);
	await waitUntil(() => answersPing(port, password), `did not answer on 127.0.0.1:${port} (is redis-server installed?)`);
	const kill = async () => {
		child.kill('SIGKILL');
		await exited(child);
	};
	return {
		port,
		url: password === undefined ? `redis://127.0.0.1:${port}` : `redis://:${encodeURIComponent(password)}@127.0.0.1:${port}`,
		freeze: () => void child.kill('SIGSTOP'),
		thaw: () => void child.kill('SIGCONT'),
		frozen: () => readFileSync(`/proc/${child.pid}/stat`, 'utf8').replace(/^.*\) /s, '').startsWith('T'),
		kill,
		restart: async () => {
			child = launch(port, password);
			await waitUntil(() => answersPing(port, password), 'did not come back');
		},
		client: () => new Redis({ host: '127.0.0.1', port, password, maxRetriesPerRequest: 1 }).on('error', () => undefined),
		stop: kill,
	};
}
