/**
 * Tiny loopback HTTP servers that are NOT a FLUX API, for the credential test: a web page, a redirect to
 * https, a server that never answers, and a closed port. Shared by the unit and the real-n8n tests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface FakeOrigin {
	url: string; // 'http://127.0.0.1:PORT'
	port: number;
	requests: string[]; // method + path of every request received
	close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 answering every request with `handler`. */
export async function startFakeOrigin(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<FakeOrigin> {
	const requests: string[] = [];
	const sockets = new Set<Socket>();
	const server: Server = createServer((req, res) => {
		requests.push(`${req.method ?? 'GET'} ${req.url ?? '/'}`);
		req.resume();
		handler(req, res);
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = (server.address() as AddressInfo).port;
	return {
		url: `http://127.0.0.1:${port}`,
		port,
		requests,
		close: () =>
			new Promise<void>((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}

/** A web site at the base URL: every path is an HTML page (200). */
export function startHtmlSite(): Promise<FakeOrigin> {
	return startFakeOrigin((_req, res) => {
		const page = '<!doctype html><html><head><title>Welcome</title></head><body><h1>Welcome</h1></body></html>';
		res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(page) });
		res.end(page);
	});
}

/** A plain-http front that sends everything to https on the same host (like a TLS-only relay). */
export function startHttpsRedirect(status: 301 | 307 = 301): Promise<FakeOrigin> {
	return startFakeOrigin((req, res) => {
		const host = req.headers.host ?? '127.0.0.1';
		res.writeHead(status, { location: `https://${host}${req.url ?? '/'}`, 'content-length': 0 });
		res.end();
	});
}

/** Accepts connections, never answers. */
export function startSilentServer(): Promise<FakeOrigin> {
	return startFakeOrigin(() => undefined);
}

/** A port on 127.0.0.1 with nothing listening (bound, then released). */
export async function closedPort(): Promise<number> {
	const origin = await startFakeOrigin((_req, res) => res.end());
	await origin.close();
	return origin.port;
}
