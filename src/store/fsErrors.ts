/** A filesystem error's `code` (undefined for anything else), and a promise's fallback value on expected codes. */
export const codeOf = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;

/** `promise`'s value, or `fallback` when it rejects with one of `codes` (any other error rejects as it came). */
export function unless<T>(promise: Promise<T>, codes: readonly string[], fallback: T): Promise<T> {
	return promise.catch((error: unknown) => {
		if (codes.includes(codeOf(error) as string)) return fallback;
		throw error;
	});
}
