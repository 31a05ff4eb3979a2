import { FluxCredentials, FluxError, FluxImageRequest, GenerateOptions, generateImage, isFluxError } from '../../src/flux';
import { flux3ImageRequest } from '../support/imageRequest';
import type { RelaySimulator } from '../../relay-sim';

/** Tiny poll/backoff intervals so the suite runs fast; the job timeout is only a ceiling (tests of timeouts set their own): 30 jobs at once took more than 30 s on a loaded 2-core machine, and it stays under the suite's 120 s test timeout. */
export const FAST = {
	timeoutMs: 100_000,
	testHooks: {
		requestTimeoutMs: 5_000,
		poll: { initialDelayMs: 2, factor: 1.5, maxDelayMs: 10, jitter: 0, maxRetryAfterMs: 20 },
		submitRetry: { initialDelayMs: 2, factor: 2, maxDelayMs: 10, jitter: 0, maxRetryAfterMs: 20, maxAttempts: 5 },
		downloadRetry: { initialDelayMs: 2, factor: 2, maxDelayMs: 10, jitter: 0, maxRetryAfterMs: 20, maxAttempts: 3 },
	},
} satisfies GenerateOptions;

/** FAST under `opts`, test hooks merged one by one (a plain spread would drop FAST's when `opts` has its own). */
export function fast<T extends GenerateOptions>(opts: T): typeof FAST & T {
	return { ...FAST, ...opts, testHooks: { ...FAST.testHooks, ...opts.testHooks } };
}

export function credsFor(sim: RelaySimulator, apiStyle: 'relay' | 'bfl' = 'relay', apiKey = sim.apiKey): FluxCredentials {
	return { apiStyle, baseUrl: `${sim.url}/`, apiKey };
}

let counter = 0;
/** A unique prompt (fault substrings match per prompt). */
export function uniquePrompt(label: string): string {
	counter++;
	return `${label} #${counter} ${Date.now().toString(36)}`;
}

export function requestFor(prompt: string, extra: Parameters<typeof flux3ImageRequest>[1] = {}): FluxImageRequest {
	return flux3ImageRequest(prompt, extra);
}

/** Awaits a rejection and returns it as a FluxError (fails the test otherwise). */
export async function failureOf(p: Promise<unknown>): Promise<FluxError> {
	try {
		await p;
	} catch (err) {
		if (!isFluxError(err)) throw err;
		return err;
	}
	throw new Error('expected a FluxError, but the job succeeded');
}

/** Asserts that a message carries no secret and no URL. */
export function expectRedacted(message: string, sim: RelaySimulator): void {
	expect(message).not.toContain(sim.apiKey);
	expect(message).not.toMatch(/https?:\/\//);
	expect(message).not.toContain(sim.url);
	expect(message).not.toMatch(/sig=|\/files\//);
	expect(message.length).toBeLessThanOrEqual(500);
}

export function generate(sim: RelaySimulator, prompt: string, style: 'relay' | 'bfl' = 'relay', opts: GenerateOptions = {}) {
	return generateImage(credsFor(sim, style), requestFor(prompt), fast(opts));
}

export function submitsFor(sim: RelaySimulator, prompt: string): number {
	return sim.log.submitsByPrompt.get(prompt) ?? 0;
}

export function tasksFor(sim: RelaySimulator, prompt: string): string[] {
	return [...sim.log.tasks.entries()].filter(([, t]) => t.prompt === prompt).map(([id]) => id);
}

/**
 * A fake clock and sleep for a job (and, when shared, for the simulator): sleeping advances
 * `now` at once and records the wait, so retries and polls run without real waiting and
 * tests assert the waits requested, never wall-clock durations.
 */
export function fakeClock(start = Date.parse('2030-01-01T00:00:00Z')) {
	let t = start;
	const slept: number[] = [];
	return {
		slept,
		now: () => t,
		sleep: async (ms: number, signal: AbortSignal) => {
			if (signal.aborted) throw new Error('aborted');
			slept.push(ms);
			t += ms;
			await new Promise((resolve) => setImmediate(resolve));
		},
	};
}

/** Waits until `condition()` holds (a state, not a duration); the test's own timeout bounds it. */
export async function waitFor(condition: () => boolean): Promise<void> {
	while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2));
}
