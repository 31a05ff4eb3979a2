/** startRelaySimulator: a real node:http server on loopback speaking both FLUX API styles. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createContext } from './context';
import { clearLog } from './log';
import { createRequestHandler } from './router';
import type { RelaySimOptions, RelaySimulator } from './types';

export async function startRelaySimulator(options: RelaySimOptions = {}): Promise<RelaySimulator> {
	const host = options.host ?? '127.0.0.1';
	const ctx = createContext(options);
	const server = createServer(createRequestHandler(ctx));
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
	ctx.hostHeader = `${host.includes(':') ? `[${host}]` : host}:${port}`;
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
