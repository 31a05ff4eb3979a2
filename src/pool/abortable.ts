/**
 * Waits until `subscribe`'s `settle` callback is called; if `signal` aborts first, calls the
 * returned unsubscribe function and rejects with `cancelled()`. Nothing is left behind either way.
 * `settle` must not be called synchronously from `subscribe`.
 */
export function waitUnlessAborted<T>(
	signal: AbortSignal | undefined,
	cancelled: () => Error,
	subscribe: (settle: (value: T) => void) => () => void,
): Promise<T> {
	if (signal?.aborted) return Promise.reject(cancelled());
	return new Promise<T>((resolve, reject) => {
		const onAbort = () => {
			unsubscribe();
			reject(cancelled());
		};
		const unsubscribe = subscribe((value) => {
			signal?.removeEventListener('abort', onAbort);
			resolve(value);
		});
		signal?.addEventListener('abort', onAbort, { once: true });
	});
}
