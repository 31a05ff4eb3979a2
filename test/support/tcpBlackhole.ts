/**
 * A loopback TCP relay to a server, whose open connections can be made a black hole: from `blackhole()` on they
 * carry nothing either way and never close (no FIN, no RST: what a client sees when the path to its server
 * vanished, e.g. the server's host or container gone, or a partition), while new connections reach the server as
 * before (a replacement at the same address).
 */
import * as net from 'node:net';

export interface TcpBlackhole {
	port: number;
	/** Every connection open now carries nothing and stays open; later connections are relayed. */
	blackhole(): void;
	/** Connections accepted so far. */
	accepted(): number;
	/** How each black-holed connection was closed by the client so far: `reset` (an RST) or `end` (a FIN). */
	closings(): Array<'reset' | 'end'>;
	close(): Promise<void>;
}

export async function startTcpBlackhole(targetPort: number): Promise<TcpBlackhole> {
	const open = new Set<{ client: net.Socket; server: net.Socket }>();
	const swallowed: net.Socket[] = [];
	const closings: Array<'reset' | 'end'> = [];
	let accepted = 0;
	const relay = net.createServer({ allowHalfOpen: true }, (client) => {
		accepted++;
		const server = net.connect({ host: '127.0.0.1', port: targetPort, allowHalfOpen: true });
		const pair = { client, server };
		open.add(pair);
		client.pipe(server);
		server.pipe(client);
		const end = () => {
			open.delete(pair);
			client.destroy();
			server.destroy();
		};
		for (const socket of [client, server]) {
			socket.on('error', end);
			socket.on('close', end);
		}
	});
	await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
	return {
		port: (relay.address() as net.AddressInfo).port,
		blackhole: () => {
			for (const { client, server } of open) {
				client.unpipe(server);
				server.unpipe(client);
				for (const socket of [client, server]) {
					socket.removeAllListeners('close');
					socket.removeAllListeners('end');
					socket.removeAllListeners('error');
					socket.on('error', () => undefined);
					socket.resume(); // read and drop: nothing arrives at the other end, nothing is answered
					swallowed.push(socket);
				}
				client.on('end', () => closings.push('end'));
				client.on('error', (error: NodeJS.ErrnoException) => {
					if (error.code === 'ECONNRESET') closings.push('reset');
				});
			}
			open.clear();
		},
		accepted: () => accepted,
		closings: () => [...closings],
		close: async () => {
			for (const socket of swallowed) socket.destroy();
			for (const { client, server } of open) {
				client.destroy();
				server.destroy();
			}
			await new Promise<void>((resolve) => relay.close(() => resolve()));
		},
	};
}
