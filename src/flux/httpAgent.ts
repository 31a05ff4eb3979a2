import { Agent, type Dispatcher } from 'undici';
import { publicOnlyLookup, type LookupFunction } from './addresses';

/** Sizing and timeouts of the shared agents. */
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

/**
 * The dispatchers a job uses, one per kind of request:
 * - `api`: polls and the credential test, keep-alive (idempotent requests may reuse sockets);
 * - `submit`: paid submits; every submit is sent with `reset` on a dispatcher no other request
 *   uses, so it always opens a fresh connection and never meets a socket the server may have
 *   closed by its idle timeout (a failure there would be ambiguous, so not retryable);
 * - `publicDownload`: downloads whose connections may only reach public addresses;
 * - `localDownload`: downloads when the Base URL itself is on a local address.
 */
export interface FluxDispatchers {
	api: Dispatcher;
	submit: Dispatcher;
	publicDownload: Dispatcher;
	localDownload: Dispatcher;
}

function newAgent(lookup: LookupFunction | undefined, keepAlive: boolean): Agent {
	return new Agent({
		connections: AGENT_DEFAULTS.connections,
		pipelining: 1,
		connect: { timeout: AGENT_DEFAULTS.connectTimeoutMs, ...(lookup ? { lookup } : {}) },
		headersTimeout: AGENT_DEFAULTS.headersTimeoutMs,
		bodyTimeout: AGENT_DEFAULTS.bodyTimeoutMs,
		keepAliveTimeout: keepAlive ? AGENT_DEFAULTS.keepAliveTimeoutMs : 1,
		keepAliveMaxTimeout: keepAlive ? 30_000 : 1,
	});
}

function createDispatchers(lookup?: LookupFunction): FluxDispatchers {
	const api = newAgent(lookup, true);
	return { api, submit: newAgent(lookup, false), publicDownload: newAgent(publicOnlyLookup(lookup), true), localDownload: api };
}

const created = new Set<FluxDispatchers>();
let shared: FluxDispatchers | undefined;
const byLookup = new WeakMap<LookupFunction, FluxDispatchers>();

function isOpen(set: FluxDispatchers | undefined): set is FluxDispatchers {
	return set !== undefined && created.has(set);
}

/**
 * The dispatchers every job uses (created lazily, module singletons). With `lookup` (tests:
 * resolve a public-looking name to loopback), a separate set that resolves through it.
 */
export function fluxDispatchers(lookup?: LookupFunction): FluxDispatchers {
	if (lookup) {
		let set = byLookup.get(lookup);
		if (!isOpen(set)) byLookup.set(lookup, (set = createDispatchers(lookup)));
		created.add(set);
		return set;
	}
	if (!isOpen(shared)) shared = createDispatchers();
	created.add(shared);
	return shared;
}

/** One explicit dispatcher (tests, benchmarks) for every kind of request. */
export function singleDispatcher(dispatcher: Dispatcher): FluxDispatchers {
	return { api: dispatcher, submit: dispatcher, publicDownload: dispatcher, localDownload: dispatcher };
}

/**
 * Closes every agent created here (destroying their sockets) so nothing keeps the process
 * alive; the next request creates fresh ones. For tests and shutdown.
 */
export async function closeFluxAgent(): Promise<void> {
	const sets = [...created];
	created.clear();
	shared = undefined;
	const agents = new Set(sets.flatMap((set) => [set.api, set.submit, set.publicDownload, set.localDownload]));
	await Promise.all([...agents].map((agent) => (agent as Agent).destroy()));
}
