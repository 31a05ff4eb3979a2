/**
 * Which connections requests go out on: a submit never reuses a socket the server may have
 * closed by its idle timeout, and downloads only reach public addresses (resolved addresses
 * checked while connecting) unless the Base URL is local. All traffic stays on 127.0.0.1: a
 * public-looking name is resolved to loopback by an injected DNS lookup.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { readPromptFromPng, startRelaySimulator, type RelaySimulator } from '../../relay-sim';
import { closeFluxAgent, generateImage } from '../../src/flux';
import { FAST, failureOf, fast, fakeClock, requestFor, submitsFor, uniquePrompt } from './helpers';

afterAll(() => closeFluxAgent());

describe('a retried submit after 429 + Retry-After: 1, against a server that closes idle sockets after 1 s', () => {
	const clock = fakeClock();
	let sim: RelaySimulator;
	beforeAll(async () => {
		// The simulator shares the fake clock: a request on a kept-alive socket idle for 1 s (the
		// Retry-After wait) is dropped unanswered, as by a server whose idle timeout just fired.
		sim = await startRelaySimulator({ latencyMs: 10, now: clock.now, dropIdleReusedSocketsAfterMs: 1_000 });
	});
	afterAll(() => sim.close());
	afterEach(() => closeFluxAgent()); // each case starts without idle sockets

	it.each(['relay', 'bfl'] as const)('%s: goes out on a fresh connection and succeeds; the server saw exactly 429 then 200', async (style) => {
		const prompt = uniquePrompt(`stale socket (${style})`);
		sim.setFault(prompt, { on: 'submit', status: 429, times: 1, retryAfter: 1 });
		const result = await generateImage({ apiStyle: style, baseUrl: sim.url, apiKey: sim.apiKey }, requestFor(prompt), fast({
			testHooks: { now: clock.now, sleep: clock.sleep, submitRetry: { ...FAST.testHooks.submitRetry, maxRetryAfterMs: 5_000 } },
		}));
		expect(readPromptFromPng(result.buffer)).toBe(prompt);
		expect(sim.log.submits.filter((s) => s.prompt === prompt).map((s) => s.status)).toEqual([429, 200]);
		expect(submitsFor(sim, prompt)).toBe(2);
		expect(clock.slept).toContain(1_000);
		expect(sim.staleSocketDrops()).toBe(0);
	});
});

/** Resolves every *.example.com name to 127.0.0.1 (and nothing else): no DNS traffic. */
function loopbackLookup(seen: string[]) {
	return (
		hostname: string,
		options: LookupOptions,
		callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
	) => {
		seen.push(hostname);
		if (!hostname.endsWith('.example.com')) {
			callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
		} else if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
		else callback(null, '127.0.0.1', 4);
	};
}

describe('download targets are checked on their resolved addresses', () => {
	let sim: RelaySimulator;
	beforeAll(async () => {
		sim = await startRelaySimulator({ latencyMs: 5, advertisedHost: 'relay.example.com' });
	});
	afterAll(() => sim.close());

	it.each(['relay', 'bfl'] as const)(
		'%s: a public-looking Base URL whose image host resolves to loopback → forbidden_host, nothing downloaded',
		async (style) => {
			const seen: string[] = [];
			const prompt = uniquePrompt(`resolves to loopback (${style})`);
			const err = await failureOf(
				generateImage({ apiStyle: style, baseUrl: sim.url, apiKey: sim.apiKey }, requestFor(prompt), fast({ testHooks: { lookup: loopbackLookup(seen) } })),
			);
			expect(sim.url).toMatch(/^http:\/\/relay\.example\.com:\d+$/);
			expect(err.kind).toBe('forbidden_host');
			expect(err.message).toMatch(/relay\.example\.com resolves to a loopback address \(127\.0\.0\.1\)/);
			expect(err.message).toMatch(/only downloaded from public addresses/);
			expect(submitsFor(sim, prompt)).toBe(1); // the API itself was reached through the same name
			expect(sim.log.downloads).toBe(0);
			expect(sim.log.redirects).toBe(0);
			expect(seen).toContain('relay.example.com');
		},
	);

	it('the same simulator on its loopback address (a local Base URL) downloads normally', async () => {
		const local = await startRelaySimulator({ latencyMs: 5 });
		try {
			const prompt = uniquePrompt('local base');
			const result = await generateImage({ apiStyle: 'relay', baseUrl: local.url, apiKey: local.apiKey }, requestFor(prompt), FAST);
			expect(readPromptFromPng(result.buffer)).toBe(prompt);
		} finally {
			await local.close();
		}
	});
});
