import { Agent, Dispatcher } from 'undici';

/** Sizing and timeouts of the shared agent. */
export const AGENT_DEFAULTS = Object.freeze({
	/** Sockets per origin: enough for the 30-wide image pool plus the 10-wide video pool, with headroom. */
	connections: 64,
	connectTimeoutMs: 15_000,
	/** Per-request default; requests may pass their own. */
	headersTimeoutMs: 120_000,
	/** Max idle time between body chunks. */
	bodyTimeoutMs: 60_000,
	keepAliveTimeoutMs: 4_000,
});

let shared: Agent | undefined;

/**
 * The one undici Agent every FLUX request uses (created lazily, module
 * singleton): 64 connections per origin, connect/headers/body timeouts.
 */
export function getFluxAgent(): Agent {
	if (!shared || shared.destroyed || shared.closed) {
		shared = new Agent({
			connections: AGENT_DEFAULTS.connections,
			pipelining: 1,
			connect: { timeout: AGENT_DEFAULTS.connectTimeoutMs },
			headersTimeout: AGENT_DEFAULTS.headersTimeoutMs,
			bodyTimeout: AGENT_DEFAULTS.bodyTimeoutMs,
			keepAliveTimeout: AGENT_DEFAULTS.keepAliveTimeoutMs,
			keepAliveMaxTimeout: 30_000,
		});
	}
	return shared;
}

/**
 * Closes the shared agent (destroying its sockets) so nothing keeps the
 * process alive; the next request creates a fresh one. For tests and shutdown.
 */
export async function closeFluxAgent(): Promise<void> {
	const agent = shared;
	shared = undefined;
	if (agent && !agent.destroyed) await agent.destroy();
}

/** The dispatcher to use: an explicit one (tests, benchmarks) or the shared agent. */
export function dispatcherFor(explicit?: Dispatcher): Dispatcher {
	return explicit ?? getFluxAgent();
}
