/**
 * Waits until `condition` holds, checking it every `everyMs` (a wait for a state, never a sleep that makes a
 * test pass); fails naming `what` once `limitMs` passed without it.
 */
export interface UntilOptions {
	/** Give up after this long (default 60 s: a bound for a hang, well past what a loaded 2-core machine needs, under the suites' test timeouts). */
	limitMs?: number;
	/** How often to check (default 10 ms). */
	everyMs?: number;
}

export async function until(condition: () => boolean | Promise<boolean>, what: string, options: UntilOptions = {}): Promise<void> {
	const { limitMs = 60_000, everyMs = 10 } = options;
	const started = Date.now();
	while (!(await condition())) {
		if (Date.now() - started > limitMs) throw new Error(`Timed out waiting until ${what}`);
		await new Promise((resolve) => setTimeout(resolve, everyMs));
	}
}
