/**
 * Poll-schedule arithmetic (no I/O): for a task that becomes Ready `latencyMs` after submit, when
 * does a client polling with `policy` first see it, and after how many polls? The waits come from
 * src/flux's own `nextPollDelay`, called exactly as src/flux/poll.ts calls it (first wait =
 * firstPollDelayMs ?? nextPollDelay(policy, 0, 0); after poll n, nextPollDelay(policy, n, time since
 * submit)), so the model follows the client for elapsed-time and backoff policies alike. Request
 * round trips are ignored (and no poll fails), so the lag here is a lower bound of the measured one.
 */
import { nextPollDelay, type PollPolicy } from '../src/flux';
import { mulberry32 } from '../relay-sim/prng';
import { mean, quantile } from './stats';

export interface ModelRow {
	latencyMs: number;
	/** Time from Ready to the first poll that sees it. */
	meanLagMs: number;
	p95LagMs: number;
	/** meanLagMs / latencyMs. */
	meanLagFraction: number;
	meanPolls: number;
	/** Polls per second while a job is polled: Σ polls / Σ (submit → seen). */
	pollsPerSecond: number;
}

/** A [0, 1) generator from the relay simulator's mulberry32 (which yields uint32). */
function uniform(seed: number): () => number {
	const next = mulberry32(seed);
	return () => next() / 0x1_0000_0000;
}

/** The task's latency is drawn uniformly from latencyMs ± `spread` (default ±5 %, like the benchmark's). */
export function modelPolicy(policy: PollPolicy, latencyMs: number, spread = 0.05, trials = 4000, seed = 1): ModelRow {
	const random = uniform(seed);
	const lags: number[] = [];
	const polls: number[] = [];
	let pollTotal = 0;
	let seenTotalMs = 0;
	for (let trial = 0; trial < trials; trial++) {
		const latency = latencyMs * (1 - spread + 2 * spread * random());
		let t = policy.firstPollDelayMs ?? nextPollDelay(policy, 0, 0, random);
		let count = 1;
		while (t < latency && count < 100_000) {
			t += nextPollDelay(policy, count, t, random);
			count++;
		}
		lags.push(t - latency);
		polls.push(count);
		pollTotal += count;
		seenTotalMs += t;
	}
	const meanLagMs = mean(lags);
	return {
		latencyMs,
		meanLagMs,
		p95LagMs: quantile(lags, 0.95),
		meanLagFraction: meanLagMs / latencyMs,
		meanPolls: mean(polls),
		pollsPerSecond: seenTotalMs > 0 ? (pollTotal * 1000) / seenTotalMs : NaN,
	};
}

/**
 * The polls on either side of `latencyMs` on the policy's schedule without jitter (jitter only
 * shortens waits): a task Ready at `latencyMs` is seen by poll `index`, at `atMs`; `gapMs` is the
 * wait that led to it, the bound on that task's lag (round trips aside).
 */
export function pollsAround(policy: PollPolicy, latencyMs: number): { index: number; beforeMs: number; atMs: number; gapMs: number } {
	const noJitter = () => 0;
	let before = 0;
	let t = policy.firstPollDelayMs ?? nextPollDelay(policy, 0, 0, noJitter);
	let index = 1;
	while (t < latencyMs && index < 100_000) {
		before = t;
		t += nextPollDelay(policy, index, t, noJitter);
		index++;
	}
	return { index, beforeMs: before, atMs: t, gapMs: t - before };
}
