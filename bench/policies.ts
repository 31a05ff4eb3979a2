/** The poll policies the benchmark compares (scenario 4), named from their own values. */
import { DEFAULT_POLL_POLICY, type PollPolicy } from '../src/flux';
import { duration, percent } from './format';

/** A poll policy's schedule in words, generated from its values (so a name cannot drift from its policy). */
export function describePoll(poll: PollPolicy): string {
	const parts = poll.elapsedFraction
		? [`${percent(poll.elapsedFraction)} of elapsed`, `${duration(poll.initialDelayMs)}–${duration(poll.maxDelayMs)}`]
		: poll.factor === 1 || poll.initialDelayMs >= poll.maxDelayMs
			? [`fixed ${duration(Math.min(poll.initialDelayMs, poll.maxDelayMs))}`]
			: [`${duration(poll.initialDelayMs)} ×${poll.factor}`, `cap ${duration(poll.maxDelayMs)}`];
	if (poll.firstPollDelayMs !== undefined) parts.push(`first poll after ${duration(poll.firstPollDelayMs)}`);
	if (poll.jitter > 0) parts.push(`${percent(poll.jitter)} jitter`);
	return parts.join(', ');
}

/** The wait before a poll, as a rule: "max(250 ms, 5 % of elapsed) ≤ 2 s", "500 ms × 1.5^n ≤ 4 s", "100 ms". */
export function pollWaitRule(poll: PollPolicy): string {
	if (poll.elapsedFraction) return `max(${duration(poll.initialDelayMs)}, ${percent(poll.elapsedFraction)} of elapsed) ≤ ${duration(poll.maxDelayMs)}`;
	if (poll.factor === 1 || poll.initialDelayMs >= poll.maxDelayMs) return duration(Math.min(poll.initialDelayMs, poll.maxDelayMs));
	return `${duration(poll.initialDelayMs)} × ${poll.factor}^n ≤ ${duration(poll.maxDelayMs)}`;
}

export interface NamedPolicy {
	name: string;
	poll: PollPolicy;
}

function namedPolicy(label: string | undefined, poll: PollPolicy): NamedPolicy {
	return { name: label ? `${label} (${describePoll(poll)})` : describePoll(poll), poll };
}

const fixedPoll = (delayMs: number): PollPolicy => ({
	...DEFAULT_POLL_POLICY,
	initialDelayMs: delayMs,
	factor: 1,
	maxDelayMs: delayMs,
	jitter: 0,
	elapsedFraction: 0,
});

export const POLICY_DEFAULT = namedPolicy('default', { ...DEFAULT_POLL_POLICY });
export const POLICY_PREVIOUS = namedPolicy('previous default', {
	...DEFAULT_POLL_POLICY,
	initialDelayMs: 500,
	factor: 1.5,
	maxDelayMs: 4000,
	elapsedFraction: 0,
});
export const POLICY_FIXED_100 = namedPolicy(undefined, fixedPoll(100));
export const POLICIES: NamedPolicy[] = [POLICY_DEFAULT, POLICY_PREVIOUS, POLICY_FIXED_100, namedPolicy(undefined, fixedPoll(250)), namedPolicy(undefined, fixedPoll(1000))];

/** The entry of `rows` measured with `policy` (looked up by name, never by position). */
export function forPolicy<T extends { name: string }>(rows: readonly T[], policy: NamedPolicy): T {
	const row = rows.find((r) => r.name === policy.name);
	if (!row) throw new Error(`no result for poll policy "${policy.name}"`);
	return row;
}
