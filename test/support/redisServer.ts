/**
 * A real redis-server of a test's own, on a free loopback port, never a shared one
 * (`--bind 127.0.0.1 --save '' --appendonly no`): started, killed (SIGKILL, as a crash) and started
 * again on the same port, stopped. Ready means it answered PING.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import { Redis } from 'ioredis';

export interface TestRedis {
	port: number;
	url: string;
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

/** A raw RESP PING on a fresh socket (no client library: nothing left behind when it fails). */
async function answersPing(port: number): Promise<boolean> {
	return await new Promise<boolean>((resolve) => {
		const socket = net.connect({ host: '127.0.0.1', port });
		let answer = '';
		const done = (ok: boolean) => {
			socket.destroy();
			resolve(ok);
		};
		socket.setTimeout(1000, () => done(false));
		socket.on('error', () => done(false));
		socket.on('connect', () => socket.write('PING\r\n'));
		socket.on('data', (chunk: Buffer) => {
			answer += chunk.toString();
			if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
		});
	});
}

function launch(port: number): ChildProcess {
	const child = spawn(REDIS_BIN, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
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
export async function startTestRedis(): Promise<TestRedis> {
	const port = await freePort();
	let child = launch(port);
	await waitUntil(() => answersPing(port), `did not answer on 127.0.0.1:${port} (is redis-server installed?)`);
	const kill = async () => {
		child.kill('SIGKILL');
		await exited(child);
	};
	return {
		port,
		url: `redis://127.0.0.1:${port}`,
		kill,
		restart: async () => {
			child = launch(port);
			await waitUntil(() => answersPing(port), 'did not come back');
		},
		client: () => new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 }).on('error', () => undefined),
		stop: kill,
	};
}
