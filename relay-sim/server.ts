/** startRelaySimulator: a real node:http server on loopback speaking both FLUX API styles. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createContext } from './context';
import { clearLog } from './log';
import { createRequestHandler } from './router';
import type { RelaySimOptions, RelaySimulator } from './types';

export async function startRelaySimulator(options: RelaySimOptions = {}): Promise<RelaySimulator> {
	const host = options.host ?? '127.0.0.1';
	const ctx = createContext(options);
	const staleSockets = dropIdleReusedSockets(ctx.now, options.dropIdleReusedSocketsAfterMs);
	const handle = createRequestHandler(ctx);
	const server = createServer((req, res) => {
		if (!staleSockets.drop(req, res)) handle(req, res);
	});
	server.keepAliveTimeout = 5_000;

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const { port } = server.address() as AddressInfo;
	ctx.port = port;
	const advertised = options.advertisedHost ?? host;
	ctx.hostHeader = `${advertised.includes(':') ? `[${advertised}]` : advertised}:${port}`;
	ctx.url = `http://${ctx.hostHeader}`;

	let closing: Promise<void> | undefined;
	return {
		url: ctx.url,
		port,
		apiKey: ctx.apiKey,
		log: ctx.log,
		setFault: (substring, fault) => ctx.faults.set(substring, fault),
		clearFaults: () => ctx.faults.clear(),
		setLatency: (latency) => ctx.tasks.setLatency(latency),
		setMaxActiveTasks: (max) => {
			ctx.settings.maxActiveTasks = max;
		},
		activeTasks: () => ctx.tasks.activeCount(),
		setMaxActiveVideoTasks: (max) => {
			ctx.settings.maxActiveVideoTasks = max;
		},
		activeVideoTasks: () => ctx.tasks.activeCount('video'),
		staleSocketDrops: () => staleSockets.count,
		setReportCost: (on) => {
			ctx.settings.reportCost = on;
		},
		reset: () => {
			ctx.faults.clear();
			ctx.tasks.clear();
			clearLog(ctx.log);
		},
		close: () => {
			closing ??= new Promise<void>((resolve) => {
				for (const timer of ctx.timers) clearInterval(timer);
				ctx.timers.clear();
				server.close(() => resolve());
				server.closeAllConnections();
			});
			return closing;
		},
	};
}

/**
 * The `dropIdleReusedSocketsAfterMs` control: remembers when each connection last finished a
 * response, and drops a request that arrives on one idle at least `afterMs` (by `now`).
 */
function dropIdleReusedSockets(now: () => number, afterMs: number | undefined) {
	const idleSince = new WeakMap<Socket, number>();
	const state = {
		count: 0,
		drop(req: IncomingMessage, res: ServerResponse): boolean {
			const socket = req.socket;
			const since = idleSince.get(socket);
			if (afterMs !== undefined && since !== undefined && now() - since >= afterMs) {
				state.count++;
				socket.destroy();
				return true;
			}
			res.on('finish', () => idleSince.set(socket, now()));
			return false;
		},
	};
	return state;
}
